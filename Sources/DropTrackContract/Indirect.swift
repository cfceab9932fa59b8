import Foundation

/// A value held indirectly, so a rule can contain a rule of its own type (an array's item rule is a
/// field rule). It codes as the value itself: `"items": {"type": "string"}`.
public indirect enum Indirect<Value: Sendable & Codable & Equatable>: Sendable, Codable, Equatable {
    case value(Value)

    /// Wraps a value.
    public init(_ value: Value) { self = .value(value) }

    /// The value held.
    public var wrapped: Value {
        switch self {
        case .value(let value): value
        }
    }

    public init(from decoder: any Decoder) throws {
        self = .value(try decoder.singleValueContainer().decode(Value.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrapped)
    }
}
