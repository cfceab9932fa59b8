import DropTrackContract
import DropTrackWire
import Foundation

/// One way a value misses its field map.
struct SchemaIssue: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A key the map does not declare; the nearest declared one, if any.
        case unknownKey(suggestion: String?)
        /// A required key is absent (or null).
        case missing
        /// The JSON type is wrong; `quotedNumber` when a number or boolean came as a string.
        case wrongType(expected: String, got: String, quotedNumber: Bool)
        /// A string that is not one of the enum's cases.
        case unknownCase(allowed: [String])
        /// A number outside the declared range.
        case outOfRange(bound: String)
        /// A string longer than the layout shows.
        case tooLong(length: Int, limit: Int)
        /// A date in the wrong encoding; the words say which.
        case badDate(String)
        /// An Android value the app's lenient parser turns into a default; the words say why.
        case unparsable(String)
        /// Not exactly one of a one-of group is set (`key` is the object's path, "" at the top).
        case notExactlyOne(members: [String], found: [String])
    }

    var key: String
    var kind: Kind
}

extension ContractSchema {
    /// Checks an object against content-state or attributes fields, reporting every issue.
    static func check(_ value: JSONValue, against fields: [String: Field], oneOf: [[String]]? = nil) -> [SchemaIssue] {
        guard let object = value.objectValue else { return [] }
        var nested: [SchemaIssue] = []
        for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
            guard let member = object[key], member != .null else { continue }
            // Nested objects and array items are checked with their paths (`detail.pickup.at`).
            if field.type == "object", let inner = field.fields {
                nested += check(member, against: inner, oneOf: field.oneOf).map {
                    SchemaIssue(key: $0.key.isEmpty ? key : "\(key).\($0.key)", kind: $0.kind)
                }
            }
            if field.type == "array", let item = field.items?.wrapped, let array = member.arrayValue {
                for (index, element) in array.enumerated() where element != .null {
                    nested += check(.object(["[\(index)]": element]), against: ["[\(index)]": item]).map {
                        SchemaIssue(key: "\(key)\($0.key)", kind: $0.kind)
                    }
                }
            }
        }
        for group in oneOf ?? [] {
            let found = group.filter { object[$0] != nil && object[$0] != .null }
            if found.count != 1 {
                nested.append(SchemaIssue(key: "", kind: .notExactlyOne(members: group, found: found)))
            }
        }
        return flatIssues(object, against: fields) + nested
    }

    private static func flatIssues(_ object: [String: JSONValue], against fields: [String: Field]) -> [SchemaIssue] {
        var issues: [SchemaIssue] = []
        for key in object.keys.sorted() where fields[key] == nil {
            issues.append(
                SchemaIssue(key: key, kind: .unknownKey(suggestion: KeySuggestion.nearest(key, among: fields.keys))))
        }
        for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
            guard let member = object[key], member != .null else {
                if field.optional != true { issues.append(SchemaIssue(key: key, kind: .missing)) }
                continue
            }
            issues += checkMember(member, key: key, field: field)
        }
        // One unknown key and one missing key is a rename (courierName → riderName), however far
        // apart the spellings are.
        let missing = issues.filter { $0.kind == .missing }
        let unexplained = issues.indices.filter { issues[$0].kind == .unknownKey(suggestion: nil) }
        if missing.count == 1, unexplained.count == 1 {
            issues[unexplained[0]].kind = .unknownKey(suggestion: missing[0].key)
        }
        return issues
    }

    private static func checkMember(_ member: JSONValue, key: String, field: Field) -> [SchemaIssue] {
        func wrong(_ expected: String) -> [SchemaIssue] {
            let text = member.stringValue
            let quoted =
                text.map { Double($0.trimmingCharacters(in: .whitespaces)) != nil || $0 == "true" || $0 == "false" }
                ?? false
            return [
                SchemaIssue(key: key, kind: .wrongType(expected: expected, got: member.typeName, quotedNumber: quoted))
            ]
        }
        var issues: [SchemaIssue] = []
        switch field.type {
        case "string":
            guard let text = member.stringValue else { return wrong("a string") }
            if let values = field.values, !values.contains(text) {
                issues.append(SchemaIssue(key: key, kind: .unknownCase(allowed: values)))
            }
            if let limit = field.maxLength, text.count > limit {
                issues.append(SchemaIssue(key: key, kind: .tooLong(length: text.count, limit: limit)))
            }
        case "number", "integer":
            guard let number = member.numberValue else {
                return wrong(field.type == "number" ? "a number" : "an integer")
            }
            if field.type == "integer" && number != number.rounded() { return wrong("an integer") }
            issues += rangeIssues(number, key: key, field: field)
        case "boolean":
            guard member.boolValue != nil else { return wrong("true or false") }
        case "object":
            guard member.objectValue != nil else { return wrong("an object") }
        case "array":
            guard member.arrayValue != nil else { return wrong("an array") }
        case "date":
            if let problem = dateProblem(member, encoding: field.dateEncoding ?? "reference") {
                issues.append(SchemaIssue(key: key, kind: .badDate(problem)))
            }
        default:
            break
        }
        return issues
    }

    private static func rangeIssues(_ number: Double, key: String, field: Field) -> [SchemaIssue] {
        if let minimum = field.minimum, number < minimum {
            return [SchemaIssue(key: key, kind: .outOfRange(bound: "at least \(format(minimum))"))]
        }
        if let maximum = field.maximum, number > maximum {
            return [SchemaIssue(key: key, kind: .outOfRange(bound: "at most \(format(maximum))"))]
        }
        return []
    }

    /// Why a date value will not decode as the app expects, or nil.
    static func dateProblem(_ value: JSONValue, encoding: String) -> String? {
        switch encoding {
        case "iso8601":
            guard let text = value.stringValue, (try? Date.ISO8601FormatStyle().parse(text)) != nil else {
                return "the app decodes ISO-8601 strings such as 2026-12-01T10:30:00Z"
            }
            return nil
        case "unix-seconds":
            guard let number = value.numberValue, number >= 1e9, number < 1e11 else {
                return "the app decodes Unix seconds"
            }
            return nil
        case "unix-milliseconds":
            guard let number = value.numberValue, number >= 1e11 else { return "the app decodes Unix milliseconds" }
            return nil
        default:
            if value.stringValue != nil {
                return
                    "a string, but Swift's default Date decoding reads a number of seconds since 2001-01-01, so the update is dropped"
            }
            guard let number = value.numberValue else {
                return "a \(value.typeName), not a number of seconds since 2001-01-01"
            }
            if number >= 1e11 {
                return
                    "looks like Unix milliseconds; the device reads seconds since 2001-01-01 and shows an absurd date"
            }
            if number > LiveActivityLint.latestPlausibleReferenceSeconds {
                return
                    "looks like Unix seconds; the device reads seconds since 2001-01-01 and shows a time about 31 years ahead"
            }
            return nil
        }
    }

    /// Checks an Android data map (every value a string) against the declared parse types.
    static func checkAndroid(_ data: [String: JSONValue], against fields: [String: Field]) -> [SchemaIssue] {
        var issues: [SchemaIssue] = []
        for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
            guard let member = data[key] else {
                if field.optional != true { issues.append(SchemaIssue(key: key, kind: .missing)) }
                continue
            }
            guard let text = member.stringValue else { continue }  // non-strings are DT-089's
            if let problem = androidProblem(text, field: field) {
                issues.append(SchemaIssue(key: key, kind: .unparsable(problem)))
            } else if let values = field.values, !values.contains(text) {
                issues.append(SchemaIssue(key: key, kind: .unknownCase(allowed: values)))
            } else if ["number", "integer"].contains(field.type), let number = Double(text) {
                issues += rangeIssues(number, key: key, field: field)
            }
        }
        return issues
    }

    /// Why the app's parser (`toDoubleOrNull() ?: 0`, `toBoolean()`) would turn a string into a
    /// default, or nil when it parses as declared.
    static func androidProblem(_ text: String, field: Field) -> String? {
        switch field.type {
        case "number":
            if text.contains(",") { return "'\(text)' uses a comma; the app parses '.' decimals and reads 0" }
            guard let number = Double(text), number.isFinite else {
                return "'\(text)' is not a number; the app reads 0"
            }
            return nil
        case "integer":
            guard Int64(text) != nil else { return "'\(text)' is not a plain integer; the app reads 0" }
            return nil
        case "boolean":
            guard text == "true" || text == "false" else {
                return "'\(text)' is not \"true\" or \"false\"; the app's toBoolean() reads false"
            }
            return nil
        case "epoch-millis":
            guard let number = Int64(text) else { return "'\(text)' is not whole Unix milliseconds" }
            if number < 100_000_000_000 {
                return "'\(text)' looks like Unix seconds; the app expects milliseconds and shows a 1970 date"
            }
            return nil
        case "epoch-seconds":
            guard let number = Int64(text) else { return "'\(text)' is not whole Unix seconds" }
            if number >= 100_000_000_000 { return "'\(text)' looks like milliseconds; the app expects Unix seconds" }
            return nil
        default:
            return nil
        }
    }

    static func format(_ number: Double) -> String {
        JSONInteger.text(number)
    }
}
