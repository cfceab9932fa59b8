import DropTrackCore
import DropTrackCrypto
import Foundation
import Synchronization

/// The APNs provider token: an ES256 JWT `{alg, kid}.{iss, iat}` signed with the team's `.p8` key.
///
/// Apple: refresh "no more than once every 20 minutes and no less than once every 60 minutes".
/// One token serves every connection, so it also changes at most once per 20 minutes on any one
/// connection (more often gives `TooManyProviderTokenUpdates`).
///
/// A token's age is measured on the monotonic clock and only its `iat` claim comes from the wall
/// clock. Aged by the wall clock, a clock stepped 50 minutes forward, or back at all, made a new
/// token on connections that had just had one: every send then got `TooManyProviderTokenUpdates`
/// and 9 of 12 updates accepted by the API never arrived. A jump is logged once (`apns.clock_jump`).
public final class APNsProviderToken: Sendable {
    /// Shortest allowed reuse.
    public static let minimumLifetime: TimeInterval = 20 * 60
    /// APNs refuses an `iat` older than this.
    public static let maximumLifetime: TimeInterval = 60 * 60
    /// A token younger than this is not replaced after `ExpiredProviderToken`: a new one would carry the
    /// same wrong `iat`, and a burst of refusals must not make a token per refusal.
    static let minimumRenewalSpacing: Duration = .seconds(10)

    /// The key id (`kid`).
    public let keyID: String
    /// The team id (`iss`).
    public let teamID: String
    /// How long a token is reused before a new one is made (20 to under 60 minutes).
    public let refreshInterval: TimeInterval
    private let key: PrivateKey
    private let clock: any WallClock
    private let monotonic: @Sendable () -> ContinuousClock.Instant
    private let logger: Logger

    private struct Issued {
        var token: String
        var header: String
        /// The monotonic instant it was made: its age for renewal.
        var madeAt: ContinuousClock.Instant
    }

    private let state = Mutex<(issued: Issued?, jumps: WallClockJumpDetector)>((nil, WallClockJumpDetector()))
    private let mints = Atomic<Int>(0)

    /// Creates a token source.
    ///
    /// - Parameters:
    ///   - refreshInterval: Reuse period, clamped to 20–59 minutes; default 50.
    ///   - clock: The wall clock, read only for the `iat` claim and to notice jumps.
    ///   - monotonic: The clock a token's age is measured on (tests pass `ManualMonotonicClock.now`).
    public init(
        key: PrivateKey, keyID: String, teamID: String, refreshInterval: TimeInterval = 50 * 60,
        clock: any WallClock = SystemWallClock(),
        monotonic: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, logger: Logger = .disabled
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
        self.monotonic = monotonic
        self.logger = logger
    }

    /// How many tokens have been made (for tests and metrics).
    public var tokensMinted: Int { mints.load(ordering: .relaxed) }

    /// The token to send now: the cached one until `refreshInterval` has passed.
    public func current() throws -> String { try currentWithHeader().token }

    /// The token and its `authorization` value (`bearer <token>`), built once per token.
    public func currentWithHeader() throws -> (token: String, header: String) {
        let (issued, jump, age): (Issued, TimeInterval?, Duration) = try state.withLock { state in
            // The clocks are read under the lock: read before it, a caller that waited for another's new
            // token held an instant older than that token and could take it for one to replace.
            let now = monotonic()
            let jump = state.jumps.observe(wall: clock.now(), monotonic: now)
            if let existing = state.issued, now - existing.madeAt < .seconds(refreshInterval) {
                return (existing, jump, now - existing.madeAt)
            }
            let made = try make(now: now)
            state.issued = made
            return (made, jump, .zero)
        }
        if let jump { reportJump(jump, tokenAge: age) }
        return (issued.token, issued.header)
    }

    /// Called after APNs refused `rejected` as expired. Makes a new token if the rejected one is still
    /// current and at least 10 s old; the caller sends again on a new connection, which takes any
    /// token as its first, so no connection sees two tokens within 20 minutes.
    ///
    /// - Returns: true when a token other than `rejected` is now current (so sending again is worthwhile).
    public func renew(rejected: String) -> Bool {
        state.withLock { state in
            let now = monotonic()
            guard let existing = state.issued else { return false }
            if existing.token != rejected { return true }  // someone already renewed
            guard now - existing.madeAt >= Self.minimumRenewalSpacing, let made = try? make(now: now) else {
                return false
            }
            state.issued = made
            return true
        }
    }

    private func make(now: ContinuousClock.Instant) throws -> Issued {
        let token = try mint(at: clock.now())
        return Issued(token: token, header: "bearer " + token, madeAt: now)
    }

    private func reportJump(_ jump: TimeInterval, tokenAge: Duration) {
        let age = Int(tokenAge.components.seconds)
        logger.warning(
            "apns.clock_jump",
            [
                "jump_seconds": String(Int(jump.rounded())),
                "token_age_seconds": String(age),
                "effect":
                    "the provider token in use is kept: its age is measured on the monotonic clock, so it is replaced in \(max(0, Int(refreshInterval) - age)) s as planned; the next token's iat is read from the wall clock, so if the clock is still wrong then, APNs refuses it and sends fail until the clock is fixed",
                "fix": "keep the clock synchronized (chrony or systemd-timesyncd); no restart is needed",
            ])
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
