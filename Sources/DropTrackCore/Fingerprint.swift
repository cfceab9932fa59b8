import DropTrackSHA256

/// A short, stable, non-reversible name for a secret (a device token, an API key, a JWT), used
/// wherever the secret itself must not appear: logs, errors, the event stream, metrics, the API.
///
/// It is the first 16 hex digits of the secret's SHA-256, so two different tokens collide only
/// with negligible probability, and the token cannot be recovered from it.
public struct Fingerprint: Hashable, Sendable, CustomStringConvertible, Codable {
    /// The 16 lowercase hex digits.
    public let value: String

    /// The fingerprint of a secret string (hashed as UTF-8).
    public init(of secret: String) {
        let digest = SHA256.hash(Array(secret.utf8))
        value = String(hexEncoding: digest.prefix(8))
    }

    /// Wraps an already computed fingerprint (for example one read back from storage or a URL).
    public init(rawValue: String) { value = rawValue }

    public var description: String { value }

    public init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(String.self) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension String {
    /// Lowercase hex of the given bytes.
    public init(hexEncoding bytes: some Sequence<UInt8>) {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        self = String(decoding: out, as: UTF8.self)
    }
}
