import Foundation

/// The JSON rules ActivityKit decodes `content-state` and `attributes` with.
///
/// Apple: "the system always decodes JSON payloads for Live Activity updates using its default
/// encoding strategies". So keys are the property names (or explicit `CodingKeys`), and a `Date`
/// is a number of seconds since 2001-01-01T00:00:00Z, not Unix seconds and not an ISO string.
public enum LiveActivityJSON {
    /// Seconds between the Unix epoch and Swift's reference date (2001-01-01T00:00:00Z).
    public static let referenceDateOffset: TimeInterval = 978_307_200

    /// An encoder with ActivityKit's default strategies, plus sorted keys so bytes are stable.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A decoder with exactly the default strategies the device uses.
    public static func decoder() -> JSONDecoder { JSONDecoder() }

    /// Encodes a value as the device expects it.
    public static func encode<T: Encodable>(_ value: T) throws -> Data { try encoder().encode(value) }

    /// Decodes a value exactly as the device would; throws where the device would silently drop it.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder().decode(type, from: data)
    }

    /// Converts Unix seconds to the number a content-state `Date` must carry.
    public static func referenceSeconds(fromUnix unix: TimeInterval) -> TimeInterval { unix - referenceDateOffset }
}
