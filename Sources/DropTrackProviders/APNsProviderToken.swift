import DropTrackCore
import DropTrackCrypto
import Foundation
import Synchronization

/// The APNs provider token: an ES256 JWT `{alg, kid}.{iss, iat}` signed with the team's `.p8` key.
///
/// Apple: refresh "no more than once every 20 minutes and no less than once every 60 minutes".
/// One token serves every connection, so it also changes at most once per 20 minutes on any one
/// connection (more often gives `TooManyProviderTokenUpdates`).
public final class APNsProviderToken: Sendable {
    /// Shortest allowed reuse.
    public static let minimumLifetime: TimeInterval = 20 * 60
    /// APNs refuses an `iat` older than this.
    public static let maximumLifetime: TimeInterval = 60 * 60

    /// The key id (`kid`).
    public let keyID: String
    /// The team id (`iss`).
    public let teamID: String
    /// How long a token is reused before a new one is made (20 to under 60 minutes).
    public let refreshInterval: TimeInterval
    private let key: PrivateKey
    private let clock: any WallClock
    private let state = Mutex<(token: String, issuedAt: Date, header: String)?>(nil)
    private let mints = Atomic<Int>(0)

    /// Creates a token source.
    ///
    /// - Parameters:
    ///   - refreshInterval: Reuse period, clamped to 20–59 minutes; default 50.
    public init(
        key: PrivateKey, keyID: String, teamID: String, refreshInterval: TimeInterval = 50 * 60,
        clock: any WallClock = SystemWallClock()
    ) throws(APNsConfigurationError) {
        guard key.algorithm == .es256 else {
            throw APNsConfigurationError(field: "key", "APNs provider tokens need an EC P-256 key (.p8)")
        }
        guard !keyID.isEmpty, keyID.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw APNsConfigurationError(
                field: "key-id", "the key id is the 10-character id shown with the key in your Apple developer account")
        }
        guard !teamID.isEmpty, teamID.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw APNsConfigurationError(
                field: "team-id", "the team id is the 10-character id of your Apple developer team")
        }
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.refreshInterval = min(
            max(refreshInterval, APNsProviderToken.minimumLifetime), APNsProviderToken.maximumLifetime - 60)
        self.clock = clock
    }

    /// How many tokens have been made (for tests and metrics).
    public var tokensMinted: Int { mints.load(ordering: .relaxed) }

    /// The token to send now: the cached one until `refreshInterval` has passed.
    public func current() throws -> String { try currentWithHeader().token }

    /// The token and its `authorization` value (`bearer <token>`), built once per token.
    public func currentWithHeader() throws -> (token: String, header: String) {
        try state.withLock { state in
            // The clock is read under the lock: read before it, a caller that waited for another's new
            // token held an instant older than that token, took it for one from the future and made a
            // second, and APNs answers two tokens on one connection within 20 minutes with 429
            // TooManyProviderTokenUpdates (400 sends at start-up saw it).
            let now = clock.now()
            if let existing = state, now.timeIntervalSince(existing.issuedAt) < refreshInterval,
                now >= existing.issuedAt
            {
                return (existing.token, existing.header)
            }
            let token = try mint(at: now)
            state = (token, now, "bearer " + token)
            return (token, "bearer " + token)
        }
    }

    /// Called after `ExpiredProviderToken` for `rejected`. Makes a new token only if the rejected
    /// one is still current and at least 20 minutes old; a younger token being called expired
    /// means the clocks disagree, and minting again would only earn `TooManyProviderTokenUpdates`.
    ///
    /// - Returns: true when a new token was made (so sending again is worthwhile).
    public func refreshAfterExpired(rejected: String) -> Bool {
        state.withLock { state in
            let now = clock.now()
            guard let existing = state else { return false }
            if existing.token != rejected { return true }  // someone already refreshed
            guard now.timeIntervalSince(existing.issuedAt) >= APNsProviderToken.minimumLifetime,
                let token = try? mint(at: now)
            else { return false }
            state = (token, now, "bearer " + token)
            return true
        }
    }

    private func mint(at time: Date) throws -> String {
        mints.add(1, ordering: .relaxed)
        return try JWS.sign(
            header: Data(Self.headerJSON(keyID: keyID)),
            claims: Data(Self.claimsJSON(teamID: teamID, issuedAt: Int64(time.timeIntervalSince1970.rounded(.down)))),
            with: key)
    }

    // Written by hand: JSONSerialization with `.sortedKeys` loads ICU's data (several MiB
    // resident) at the first push. The bytes are those it wrote: keys in sorted order, no spaces.

    /// The JWT header, `{"alg":"ES256","kid":"<key id>"}`.
    static func headerJSON(keyID: String) -> [UInt8] {
        Array(#"{"alg":"ES256","kid":"#.utf8) + jsonString(keyID) + [UInt8(ascii: "}")]
    }

    /// The JWT claims, `{"iat":<seconds>,"iss":"<team id>"}`.
    static func claimsJSON(teamID: String, issuedAt: Int64) -> [UInt8] {
        Array(#"{"iat":\#(issuedAt),"iss":"#.utf8) + jsonString(teamID) + [UInt8(ascii: "}")]
    }

    /// `text` as a JSON string, escaped as JSONSerialization escapes it. The ids are letters and digits
    /// (the initializer checks), so this only guards against a check loosened later.
    static func jsonString(_ text: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out += [UInt8(ascii: "\\"), byte]
            case 0x08: out += Array(#"\b"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0C: out += Array(#"\f"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }
}

/// A client configuration that cannot work, naming the setting.
public struct APNsConfigurationError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The flag or config key to fix.
    public var field: String
    /// What is wrong and how to fix it.
    public var message: String

    public init(field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { message }
}
