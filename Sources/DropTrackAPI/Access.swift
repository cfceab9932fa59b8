import DropTrackCore
import DropTrackDispatch
import DropTrackModel
import DropTrackSHA256
import Foundation

/// Finds the app an API key belongs to. Only SHA-256 hashes of keys are held, and every stored
/// hash is compared in full, so neither the answer time nor an early exit tells how close a guess
/// came.
public struct APIKeyring: Sendable {
    struct Entry: Sendable {
        var digest: [UInt8]
        var app: AppID
    }

    let entries: [Entry]

    /// Builds the keyring from the apps' `apiKeyHashes` (`sha256:<hex>`).
    public init(apps: [AppConfiguration]) {
        var entries: [Entry] = []
        // The configuration refuses an app whose id is no AppID, so none is left out here but in a
        // configuration that was never validated.
        for app in apps {
            guard let id = AppID(app.id) else { continue }
            for hash in app.apiKeyHashes {
                guard hash.hasPrefix("sha256:"), let digest = Self.bytes(hex: String(hash.dropFirst(7))),
                    digest.count == 32
                else { continue }
                entries.append(Entry(digest: digest, app: id))
            }
        }
        self.entries = entries
    }

    /// The app whose key this is, or nil.
    public func app(forKey key: String) -> AppID? {
        let digest = SHA256.hash(Array(key.utf8))
        var found: AppID? = nil
        for entry in entries {
            var difference: UInt8 = 0
            for index in 0..<32 { difference |= entry.digest[index] ^ digest[index] }
            if difference == 0 { found = entry.app }
        }
        return found
    }

    /// True when `app` still has the key whose fingerprint (``Fingerprint``: the first 16 hex digits of
    /// its SHA-256) this is: what a console session or a device credential minted under a key is
    /// checked against, so `apps rotate-key` and `apps remove` end them.
    public func holds(app: AppID, keyFingerprint: String) -> Bool {
        entries.contains { $0.app == app && String(hexEncoding: $0.digest.prefix(8)) == keyFingerprint }
    }

    /// The app named by an `Authorization: Bearer <key>` header value.
    public func app(forAuthorization header: String?) -> (app: AppID, keyFingerprint: String)? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        let key = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty, let app = app(forKey: key) else { return nil }
        return (app, Fingerprint(of: key).value)
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
