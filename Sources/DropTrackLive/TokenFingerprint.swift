import DropTrackSHA256
import Foundation

/// The name a push token goes by wherever the token itself must not appear: the ledger, logs,
/// errors. A token is a credential to push to the phone, so only its SHA-256 is ever written down.
public struct TokenFingerprint: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The 64 lowercase hex digits of the SHA-256 of the token's lowercase hex (as the server hashes it).
    public let sha256: String

    /// The fingerprint of a token given as ActivityKit's bytes.
    public init(token: Data) { self.init(hexToken: token.lowercaseHex) }

    /// The fingerprint of a token given as hex (either case).
    public init(hexToken: String) { sha256 = SHA256.hash(Array(hexToken.lowercased().utf8)).lowercaseHex }

    /// The server's shorter name for the same token (the first 16 hex digits), used by `DELETE /v1/tokens/{fingerprint}`.
    public var server: String { String(sha256.prefix(16)) }

    public var description: String { server }
}

extension Sequence<UInt8> {
    /// Lowercase hex of the bytes: how ActivityKit tokens travel to the server.
    var lowercaseHex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Data {
    /// The bytes of a push token given as hex (either case), or nil when it is not even-length hex.
    public init?(pushTokenHex hex: String) {
        let characters = Array(hex.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 2)
        for index in stride(from: 0, to: characters.count, by: 2) {
            guard let high = Self.nibble(characters[index]), let low = Self.nibble(characters[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        self.init(bytes)
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
