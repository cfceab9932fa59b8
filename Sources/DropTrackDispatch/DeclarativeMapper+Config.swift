import DropTrackContract
import DropTrackWire
import Foundation

// Compiling a mapper from the configuration's JSON, checked against the type's schema: every error
// is a ConfigurationError naming the key (`apps[0].schemas.Receipt.mapper.contentState.status.cases`).
extension DeclarativeMapper {
    /// Compiles `json` for `type`, whose content-state `schema` the mapping must fill.
    init(_ json: JSONValue, schema: AttributesSchema, type: String, at key: String) throws(ConfigurationError) {
        let top = try Self.object(json, at: key, known: ["events", "contentState", "oneOf"])
        guard let eventsJSON = top["events"]?.objectValue, !eventsJSON.isEmpty else {
            throw ConfigurationError(
                key: "\(key).events", "\(key).events must be an object naming at least one event type")
        }
        var events: [String: EventRule] = [:]
        for (name, rule) in eventsJSON.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, !name.hasPrefix("delivery.") else {
                throw ConfigurationError(
                    key: "\(key).events", "\(key).events: '\(name)' is not a usable event type (delivery.* is built in)"
                )
            }
            events[name] = try Self.eventRule(rule, at: "\(key).events[\(name)]")
        }
        guard let stateJSON = top["contentState"] else {
            throw ConfigurationError(
                key: "\(key).contentState", "\(key).contentState must map the content-state's fields")
        }
        var timed: [(list: Path, at: Path)] = []
        let state = try Self.objectSpec(
            fields: stateJSON, oneOf: top["oneOf"], schema: schema.contentState, at: "\(key).contentState",
            oneOfAt: "\(key).oneOf", timed: &timed)
        self.type = type
        self.events = events
        self.contentState = state
        self.timed = timed
    }

    private static func object(_ value: JSONValue, at key: String, known: Set<String>) throws(ConfigurationError)
        -> [String: JSONValue]
    {
        guard let object = value.objectValue else {
            throw ConfigurationError(key: key, "\(key) must be an object, not a \(value.typeName)")
        }
        for name in object.keys.sorted() where !known.contains(name) {
            throw ConfigurationError(
                key: "\(key).\(name)",
                "\(key): unknown key '\(name)'\(KeySuggestion.didYouMean(name, among: known)); the keys are \(known.sorted().joined(separator: ", "))"
            )
        }
        return object
    }

    private static func eventRule(_ json: JSONValue, at key: String) throws(ConfigurationError) -> EventRule {
        let object = try object(json, at: key, known: ["set", "unset", "ends", "alert"])
        var rule = EventRule(set: [], unset: [], ends: false, alert: nil, dataKeys: [])
        for (name, value) in (object["set"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            let at = "\(key).set.\(name)"
            let target = try Path(name, at: at)
            let source: Source
            if let text = value.stringValue {
                source = .data(try Path(text, at: at), fallback: nil, optional: false)
            } else {
                let spec = try self.object(value, at: at, known: ["from", "default", "optional", "value", "now"])
                if let literal = spec["value"] {
                    source = .literal(literal)
                } else if spec["now"] == .bool(true) {
                    source = .now
                } else if let from = spec["from"]?.stringValue {
                    source = .data(
                        try Path(from, at: "\(at).from"), fallback: spec["default"],
                        optional: spec["optional"] == .bool(true))
                } else {
                    throw ConfigurationError(
                        key: at, "\(at) must be a data path, {\"from\": path}, {\"value\": literal} or {\"now\": true}")
                }
            }
            if case .data(let path, _, _) = source { rule.dataKeys.insert(path.segments[0]) }
            rule.set.append((target, source))
        }
        if object["set"] != nil && object["set"]?.objectValue == nil {
            throw ConfigurationError(key: "\(key).set", "\(key).set must be an object of record path: source")
        }
        for (index, value) in (object["unset"]?.arrayValue ?? []).enumerated() {
            guard let text = value.stringValue else {
                throw ConfigurationError(key: "\(key).unset[\(index)]", "\(key).unset[\(index)] must be a record path")
            }
            rule.unset.append(try Path(text, at: "\(key).unset[\(index)]"))
        }
        if let ends = object["ends"] {
            guard let flag = ends.boolValue else {
                throw ConfigurationError(key: "\(key).ends", "\(key).ends must be true or false")
            }
            rule.ends = flag
        }
        if let alert = object["alert"] {
            let fields = try self.object(alert, at: "\(key).alert", known: ["title", "body"])
            var templates: [String: String] = [:]
            for (name, value) in fields {
                guard let text = value.stringValue else {
                    throw ConfigurationError(key: "\(key).alert.\(name)", "\(key).alert.\(name) must be a string")
                }
                for placeholder in Self.placeholders(text) { _ = try Path(placeholder, at: "\(key).alert.\(name)") }
                templates[name] = text
            }
            guard !templates.isEmpty else {
                throw ConfigurationError(key: "\(key).alert", "\(key).alert needs a title or a body")
            }
            rule.alert = templates
        }
        return rule
    }

    /// The `{path}` placeholders of an alert template.
    static func placeholders(_ template: String) -> [String] {
        template.split(separator: "{", omittingEmptySubsequences: false).dropFirst().compactMap { part in
            part.firstIndex(of: "}").map { String(part[..<$0]) }
        }
    }

    private static func objectSpec(
        fields json: JSONValue, oneOf: JSONValue?, schema: [String: AttributesSchema.Field]?, at key: String,
        oneOfAt: String, timed: inout [(list: Path, at: Path)]
    ) throws(ConfigurationError) -> ObjectSpec {
        guard let object = json.objectValue else {
            throw ConfigurationError(key: key, "\(key) must be an object of field: mapping")
        }
        var fields: [String: Spec] = [:]
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            let at = "\(key).\(name)"
            if let schema, schema[name] == nil {
                throw ConfigurationError(
                    key: at,
                    "\(at): the schema has no field '\(name)'\(KeySuggestion.didYouMean(name, among: schema.keys)); map one of \(schema.keys.sorted().joined(separator: ", "))"
                )
            }
            fields[name] = try spec(value, schema: schema?[name], at: at, timed: &timed)
        }
        for (name, rule) in (schema ?? [:]).sorted(by: { $0.key < $1.key }) where rule.optional != true {
            guard fields[name] != nil else {
                throw ConfigurationError(
                    key: "\(key).\(name)",
                    "\(key).\(name) is required by the schema; map it (or make it optional there)")
            }
        }
        var spec = ObjectSpec(fields: fields, oneOf: nil)
        if let oneOf {
            let rule = try self.object(oneOf, at: oneOfAt, known: ["by", "cases", "default"])
            guard let by = rule["by"]?.stringValue, let cases = rule["cases"]?.objectValue, !cases.isEmpty else {
                throw ConfigurationError(
                    key: oneOfAt, "\(oneOfAt) needs \"by\" (a record path) and \"cases\" ({record value: field})")
            }
            var names: [String: String] = [:]
            for (value, field) in cases {
                guard let field = field.stringValue, fields[field] != nil else {
                    throw ConfigurationError(
                        key: "\(oneOfAt).cases.\(value)",
                        "\(oneOfAt).cases.\(value) must name a field mapped in \(key): \(fields.keys.sorted().joined(separator: ", "))"
                    )
                }
                names[value] = field
            }
            let fallback = rule["default"]?.stringValue
            if let fallback, fields[fallback] == nil {
                throw ConfigurationError(
                    key: "\(oneOfAt).default", "\(oneOfAt).default must name a field mapped in \(key)")
            }
            spec.oneOf = OneOf(by: try Path(by, at: "\(oneOfAt).by"), cases: names, fallback: fallback)
            for member in spec.oneOf?.members ?? [] where schema?[member].map({ $0.optional != true }) == true {
                throw ConfigurationError(
                    key: "\(key).\(member)",
                    "\(key).\(member) is a oneOf member, so the schema must mark it \"optional\": true")
            }
        }
        return spec
    }

    private static func spec(
        _ json: JSONValue, schema: AttributesSchema.Field?, at key: String, timed: inout [(list: Path, at: Path)]
    ) throws(ConfigurationError) -> Spec {
        if let text = json.stringValue { return .copy(try Path(text, at: key), fallback: nil) }
        let object = try self.object(
            json, at: key,
            known: ["from", "default", "value", "date", "enum", "cases", "object", "oneOf", "entry", "at", "which"])
        if let literal = object["value"] { return .literal(literal) }
        if let from = object["from"]?.stringValue {
            return .copy(try Path(from, at: "\(key).from"), fallback: object["default"])
        }
        if let date = object["date"]?.stringValue { return .date(try Path(date, at: "\(key).date")) }
        if let path = object["enum"]?.stringValue {
            guard let cases = object["cases"]?.objectValue, !cases.isEmpty else {
                throw ConfigurationError(key: "\(key).cases", "\(key).cases must map record values to case names")
            }
            var names: [String: String] = [:]
            for (value, name) in cases {
                guard let name = name.stringValue else {
                    throw ConfigurationError(key: "\(key).cases.\(value)", "\(key).cases.\(value) must be a string")
                }
                if let allowed = schema?.values, !allowed.contains(name) {
                    throw ConfigurationError(
                        key: "\(key).cases.\(value)",
                        "\(key).cases.\(value) is '\(name)', which the schema does not allow: \(allowed.joined(separator: ", "))"
                    )
                }
                names[value] = name
            }
            return .cases(try Path(path, at: "\(key).enum"), names, fallback: object["default"]?.stringValue)
        }
        if let inner = object["object"] {
            let nested = try objectSpec(
                fields: inner, oneOf: object["oneOf"], schema: schema?.fields, at: "\(key).object",
                oneOfAt: "\(key).oneOf", timed: &timed)
            guard let list = object["entry"] else { return .object(nested) }
            guard let listPath = list.stringValue else {
                throw ConfigurationError(key: "\(key).entry", "\(key).entry must be the record path of a list")
            }
            let which = object["which"]?.stringValue ?? "current"
            guard which == "current" || which == "next" else {
                throw ConfigurationError(key: "\(key).which", "\(key).which is current or next, not '\(which)'")
            }
            let entry = (
                list: try Path(listPath, at: "\(key).entry"),
                at: try Path(object["at"]?.stringValue ?? "at", at: "\(key).at")
            )
            timed.append(entry)
            return .entry(list: entry.list, at: entry.at, next: which == "next", object: nested)
        }
        throw ConfigurationError(
            key: key,
            "\(key) must be a record path or one of {\"from\"}, {\"value\"}, {\"date\"}, {\"enum\", \"cases\"}, {\"object\"} or {\"entry\", \"object\"}"
        )
    }
}
