import Foundation

/// Any JSON value, with numbers, booleans and strings kept apart (Foundation's `Any` blurs `1` and
/// `true`). Used wherever a payload must be inspected before it is trusted.
public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value == value.rounded(), abs(value) < 9.007_199_254_740_992e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses JSON bytes.
    public static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue { try parse(bytes: data) }

    /// Parses a JSON string.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue { try parse(bytes: Array(text.utf8)) }

    /// Encodes with sorted keys and unescaped slashes.
    public func encoded() -> Data { Data(serialized()) }

    /// The members of an object, or nil.
    public var objectValue: [String: JSONValue]? { if case .object(let v) = self { v } else { nil } }
    /// The elements of an array, or nil.
    public var arrayValue: [JSONValue]? { if case .array(let v) = self { v } else { nil } }
    /// The string, or nil.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The number, or nil.
    public var numberValue: Double? { if case .number(let v) = self { v } else { nil } }
    /// The boolean, or nil.
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }

    /// A member of an object.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// The JSON type's name, for error messages ("expected a number, got a string").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
