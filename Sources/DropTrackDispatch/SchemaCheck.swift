import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackWire
import Foundation

// Checking a content-state or attributes against a registered schema: flat fields, nested objects
// (`fields`), arrays' items (`items`) and "exactly one of" groups (`oneOf`), each error naming its path.
extension ContractBook {
    /// A generic object checked field by field: unknown keys (with a hint), missing required keys,
    /// wrong JSON types, enum values, nested objects and items, and one-of groups; dates accepted as
    /// ISO-8601 strings and converted to seconds since 2001-01-01.
    static func check(
        _ value: JSONValue, against fields: [String: AttributesSchema.Field], oneOf: [[String]]? = nil,
        field: String
    ) throws(Refusal) -> JSONValue {
        let reader = try FieldReader(value, prefix: field)
        try reader.refuseUnknown(Set(fields.keys))
        var out: [String: JSONValue] = [:]
        for (name, rule) in fields.sorted(by: { $0.key < $1.key }) {
            let path = "\(field).\(name)"
            guard let member = reader.object[name], member != .null else {
                if rule.optional == true { continue }
                throw Refusal.missing(path, "a \(rule.type)")
            }
            out[name] = try checkMember(member, rule: rule, path: path)
        }
        for group in oneOf ?? [] {
            let filled = group.filter { out[$0] != nil }
            guard filled.count == 1 else {
                throw Refusal.invalid(
                    field,
                    "'\(field)': exactly one of \(group.joined(separator: ", ")) must be set; found \(filled.isEmpty ? "none" : filled.joined(separator: ", "))"
                )
            }
        }
        return .object(out)
    }

    /// One present, non-null member checked against its rule; returns it as the widget decodes it.
    private static func checkMember(_ member: JSONValue, rule: AttributesSchema.Field, path: String)
        throws(Refusal) -> JSONValue
    {
        switch rule.type {
        case "string":
            guard let text = member.stringValue else { throw typeError(path, rule.type, member) }
            if let values = rule.values, !values.contains(text) {
                throw Refusal.invalid(
                    path, "'\(path)' is '\(text)'; the app knows \(values.joined(separator: ", "))")
            }
        case "number": guard member.numberValue != nil else { throw typeError(path, rule.type, member) }
        case "integer":
            guard let number = member.numberValue, number == number.rounded() else {
                throw typeError(path, rule.type, member)
            }
            // The widget decodes an Int; beyond 2^53 the number would not arrive as it was sent.
            guard Int64(checking: number, within: JSONInteger.exactRange) != nil else {
                throw Refusal.invalid(
                    path,
                    "'\(path)' = \(JSONInteger.text(number)) is out of range; an integer is from \(JSONInteger.exactRange.lowerBound) to \(JSONInteger.exactRange.upperBound)"
                )
            }
        case "boolean": guard member.boolValue != nil else { throw typeError(path, rule.type, member) }
        case "object":
            guard member.objectValue != nil else { throw typeError(path, rule.type, member) }
            if let nested = rule.fields { return try check(member, against: nested, oneOf: rule.oneOf, field: path) }
        case "array":
            guard let items = member.arrayValue else { throw typeError(path, rule.type, member) }
            if let item = rule.items?.wrapped {
                var checked: [JSONValue] = []
                for (index, element) in items.enumerated() {
                    guard element != .null || item.optional == true else {
                        throw Refusal.missing("\(path)[\(index)]", "a \(item.type)")
                    }
                    checked.append(
                        element == .null ? .null : try checkMember(element, rule: item, path: "\(path)[\(index)]"))
                }
                return .array(checked)
            }
        case "date":
            if let text = member.stringValue {
                guard let date = ContentDates.parseISO8601(text) else {
                    throw Refusal.invalid(
                        path, "'\(path)' must be an ISO-8601 date and time that exists, like 2026-12-01T10:30:00Z")
                }
                return .number(try Self.checkedDate(date.timeIntervalSinceReferenceDate, path: path).rounded())
            }
            guard let number = member.numberValue else { throw typeError(path, "date", member) }
            return .number(try checkedDate(number, path: path))
        default: break
        }
        return member
    }

    /// Seconds since 2001-01-01 inside `ContentDates`' window, however the date was given; a number
    /// past it is most likely Unix time.
    static func checkedDate(_ seconds: Double, path: String) throws(Refusal) -> Double {
        guard ContentDates.contains(referenceSeconds: seconds) else {
            let unixLike = seconds > ContentDates.latestReferenceSeconds && seconds < 1e14
            throw Refusal.invalid(
                path,
                unixLike
                    ? "'\(path)' = \(JSONInteger.text(seconds)) looks like Unix time; send an ISO-8601 string or seconds since 2001-01-01"
                    : "'\(path)' = \(JSONInteger.text(seconds)) is not a date \(ContentDates.windowText); send an ISO-8601 string or seconds since 2001-01-01"
            )
        }
        return seconds
    }

    private static func typeError(_ path: String, _ type: String, _ value: JSONValue) -> Refusal {
        Refusal.invalid(path, "'\(path)' must be a \(type), not a \(value.typeName)")
    }
}

extension AttributesSchema {
    /// The types a field may have.
    static let fieldTypes: Set<String> = ["string", "number", "integer", "boolean", "date", "object", "array"]

    /// Checks the nested rules and the mapper when the configuration loads, naming the key at fault
    /// (`apps[0].schemas.Receipt.contentState.detail.oneOf`).
    func validate(at path: String, type: String) throws(ConfigurationError) {
        try validateOutput(at: path)
        try Self.validate(contentState, oneOf: oneOf, at: "\(path).contentState", groupsAt: "\(path).oneOf")
        if let attributes { try Self.validate(attributes, oneOf: nil, at: "\(path).attributes", groupsAt: path) }
        if let mapper {
            _ = try DeclarativeMapper(mapper, schema: self, type: type, at: "\(path).mapper")
        }
    }

    /// The content-state forms a start or update can go out in.
    static let outputs: Set<String> = ["activitykit", "expo-widgets"]

    /// A misspelt `output` would send ActivityKit's form to an expo-widgets app, which then shows nothing; widget
    /// names only mean something for expo-widgets, and a start picks one by name.
    private func validateOutput(at path: String) throws(ConfigurationError) {
        if let output, !Self.outputs.contains(output) {
            throw ConfigurationError(
                key: "\(path).output",
                "\(path).output must be activitykit or expo-widgets, not '\(output)'\(KeySuggestion.didYouMean(output, among: Self.outputs))"
            )
        }
        let names =
            (widgetName.map { [("\(path).widgetName", $0)] } ?? [])
            + (widgetNames ?? []).enumerated().map { ("\(path).widgetNames[\($0.offset)]", $0.element) }
        guard isExpoWidgets || names.isEmpty else {
            throw ConfigurationError(
                key: names[0].0,
                "\(names[0].0) names an expo-widgets widget, but \(path).output is not \"expo-widgets\"; set it, or remove the widget names"
            )
        }
        if activityIdAttribute == true, !isExpoWidgets {
            throw ConfigurationError(
                key: "\(path).activityIdAttribute",
                "\(path).activityIdAttribute is for expo-widgets' LiveActivityAttributes, but \(path).output is not \"expo-widgets\"; set it, or remove activityIdAttribute (an ActivityKit type carries its own attributes)"
            )
        }
        var seen = Set<String>()
        for (key, name) in names {
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ConfigurationError(key: key, "\(key) is empty; give the widget's name as the app declares it")
            }
            // widgetName may repeat in widgetNames (it is listed first either way); widgetNames itself may not.
            guard key.hasSuffix(".widgetName") || seen.insert(name).inserted else {
                throw ConfigurationError(key: key, "\(key) '\(name)' is listed twice; remove one")
            }
        }
    }

    private static func validate(
        _ fields: [String: Field], oneOf: [[String]]?, at path: String, groupsAt groupsPath: String
    ) throws(ConfigurationError) {
        for (name, rule) in fields.sorted(by: { $0.key < $1.key }) {
            try validate(rule, at: "\(path).\(name)")
        }
        for (index, group) in (oneOf ?? []).enumerated() {
            let key = "\(groupsPath)[\(index)]"
            guard group.count >= 2 else {
                throw ConfigurationError(key: key, "\(key) must name at least two fields (exactly one of them is set)")
            }
            for name in group {
                guard let rule = fields[name] else {
                    throw ConfigurationError(
                        key: key,
                        "\(key) names '\(name)', which is not a field here; the fields are \(fields.keys.sorted().joined(separator: ", "))"
                    )
                }
                guard rule.optional == true else {
                    throw ConfigurationError(
                        key: key,
                        "\(key) names '\(name)', which must then be \"optional\": true (it is unset when another is set)"
                    )
                }
            }
        }
    }

    private static func validate(_ rule: Field, at path: String) throws(ConfigurationError) {
        guard fieldTypes.contains(rule.type) else {
            // Only rules using the nested keys are held to the list, so older files keep loading.
            guard rule.fields == nil, rule.items == nil, rule.oneOf == nil else {
                throw ConfigurationError(
                    key: "\(path).type", "\(path).type must be one of \(fieldTypes.sorted().joined(separator: ", "))")
            }
            return
        }
        if rule.fields != nil || rule.oneOf != nil, rule.type != "object" {
            throw ConfigurationError(
                key: "\(path).fields", "\(path): 'fields' and 'oneOf' are for type object, not \(rule.type)")
        }
        if rule.items != nil, rule.type != "array" {
            throw ConfigurationError(key: "\(path).items", "\(path): 'items' is for type array, not \(rule.type)")
        }
        if rule.oneOf != nil, rule.fields == nil {
            throw ConfigurationError(key: "\(path).oneOf", "\(path): 'oneOf' needs the object's 'fields'")
        }
        if let nested = rule.fields {
            try validate(nested, oneOf: rule.oneOf, at: "\(path).fields", groupsAt: "\(path).oneOf")
        }
        if let item = rule.items?.wrapped { try validate(item, at: "\(path).items") }
    }
}
