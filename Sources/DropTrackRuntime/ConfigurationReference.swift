import DropTrackDispatch
import Foundation

/// One configuration key as the reference prints it: its name and variable and meaning from
/// `ServerConfiguration.keys`, its type and default read from the decoded type's own default value, so the
/// printed reference (docs/reference/configuration.md) cannot disagree with what `serve` reads.
public struct ConfigurationKeyReference: Sendable, Equatable, Encodable {
    /// The key in the JSON file.
    public var key: String
    /// The `DROPTRACK_*` variable that overrides it, or nil when there is none (`apps`).
    public var variable: String?
    /// What a JSON value of it is: `string`, `integer`, `number`, `boolean`, `list of strings`, `list of apps`.
    public var type: String
    /// The value when neither the file nor a variable gives one, as JSON text, or nil when it is unset.
    public var defaultValue: String?
    /// What it does.
    public var meaning: String

    enum CodingKeys: String, CodingKey {
        case key, variable, type, meaning
        case defaultValue = "default"
    }
}

extension ServerConfiguration {
    /// Every key of `keys`, with the type and default of the stored property of the same name.
    public static var reference: [ConfigurationKeyReference] {
        let defaults = Dictionary(
            Mirror(reflecting: ServerConfiguration()).children.compactMap { child in
                child.label.map { ($0, child.value) }
            }, uniquingKeysWith: { first, _ in first })
        return keys.map { entry in
            let value = defaults[entry.key]
            return ConfigurationKeyReference(
                key: entry.key, variable: entry.variable == "-" ? nil : entry.variable,
                type: value.map(Self.typeName(of:)) ?? "unknown", defaultValue: value.flatMap(Self.jsonText(of:)),
                meaning: entry.help)
        }
    }

    /// The reference as a Markdown table (`droptrack config keys`), or as JSON (`--json`).
    public static func referenceText(json: Bool) -> String {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return (try? encoder.encode(reference)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        }
        var lines = ["| key | variable | type | default | meaning |", "|---|---|---|---|---|"]
        for entry in reference {
            let cells = [
                "`\(entry.key)`", entry.variable.map { "`\($0)`" } ?? "-", entry.type,
                entry.defaultValue.map { "`\($0)`" } ?? "unset",
                entry.meaning.replacingOccurrences(of: "|", with: "\\|"),
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// What a JSON value of the property's type is called in the file. Exact types, not `is` casts: an
    /// empty `[AppConfiguration]` would pass as `[String]`, since Swift casts an empty array to any element type.
    static func typeName(of value: Any) -> String {
        let type = Swift.type(of: value)
        if type == String.self || type == String?.self { return "string" }
        if type == Int.self { return "integer" }
        if type == Double.self { return "number" }
        if type == Bool.self { return "boolean" }
        if type == [String].self { return "list of strings" }
        if type == [AppConfiguration].self { return "list of apps" }
        return "\(type)"
    }

    /// The default as JSON text (whole numbers without a fraction), or nil for an unset optional.
    static func jsonText(of value: Any) -> String? {
        switch value {
        case let text as String: return "\"\(text)\""
        case let optional as String?: return optional.map { "\"\($0)\"" }
        case let number as Double:
            return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case let number as Int: return String(number)
        case let flag as Bool: return String(flag)
        case let list as [String]: return "[" + list.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        case let list as [AppConfiguration]: return list.isEmpty ? "[]" : "[…]"
        default: return "\(value)"
        }
    }
}
