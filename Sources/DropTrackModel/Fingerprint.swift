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

    /// Wraps an already computed fingerprint without checking it. Text from outside (a stored row, a
    /// URL) goes through `init(validating:)` instead.
    public init(rawValue: String) { value = rawValue }

    /// The number of hex digits in a fingerprint.
    public static let length = 16

    /// Reads text that must be a fingerprint: exactly 16 lowercase hex digits. Anything else (a raw
    /// token pasted by mistake, uppercase, a truncated copy) throws, and the error does not repeat
    /// the text, which may be a secret.
    public init(validating text: String) throws(InvalidFingerprint) {
        let digits = text.utf8
        // Digits first: once every byte is one, the byte count is the character count the error gives.
        guard digits.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw InvalidFingerprint(.notLowercaseHex)
        }
        guard digits.count == Self.length else { throw InvalidFingerprint(.length(digits.count)) }
        value = text
    }

    public var description: String { value }

    public init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(String.self) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

extension Fingerprint: Comparable {
    /// In the order of the text: the order fan-out ranges and cursors use.
    public static func < (lhs: Fingerprint, rhs: Fingerprint) -> Bool { lhs.value < rhs.value }
}

/// Text that is not a fingerprint. Its description says what is wrong and what a fingerprint is,
/// never the text itself (it may be a token).
public struct InvalidFingerprint: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the text.
    public enum Problem: Equatable, Sendable {
        /// It has this many hex digits, not 16.
        case length(Int)
        /// It has a character other than 0-9 and a-f.
        case notLowercaseHex
    }

    public let problem: Problem

    public init(_ problem: Problem) { self.problem = problem }

    public var description: String {
        let what =
            switch problem {
            case .length(let count): "has \(count) characters"
            case .notLowercaseHex: "has a character other than 0-9 and a-f"
            }
        return
            "\(what); a fingerprint is 16 lowercase hex digits (the first 16 of the token's SHA-256), as the API returns it in `fingerprint`"
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
