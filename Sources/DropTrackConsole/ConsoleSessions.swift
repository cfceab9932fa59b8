import DropTrackAPI
import DropTrackCore
import DropTrackModel
import DropTrackSHA256
import DropTrackStore
import Foundation

/// One signed-in operator: the app whose key they gave (never the key itself) and the CSRF token
/// their forms must carry.
public struct ConsoleSession: Sendable, Equatable {
    /// The random id in the cookie.
    public var id: String
    /// The app the key belongs to: every page shows this app's data only.
    public var app: AppID
    /// The key's fingerprint, for logs.
    public var keyFingerprint: String
    /// The hidden form field every state-changing request of this session must carry.
    public var csrfToken: String
    public var createdAt: Date
    public var lastSeenAt: Date
}

/// How long sessions live and how many are kept.
public struct ConsoleSessionLimits: Sendable, Equatable {
    /// A session ends this long after sign-in, however busy.
    public var lifetime: TimeInterval
    /// A session ends after this long without a request.
    public var idleTimeout: TimeInterval
    /// Sessions kept at most per app; signing in past it ends that app's least recently used one.
    public var capacity: Int

    /// 12 hours, 1 hour idle, 256 sessions per app.
    public init(lifetime: TimeInterval = 12 * 3600, idleTimeout: TimeInterval = 3600, capacity: Int = 256) {
        self.lifetime = lifetime
        self.idleTimeout = idleTimeout
        self.capacity = max(1, capacity)
    }
}

/// The console's sessions, kept in the store: any replica behind a load balancer, or one restarted,
/// knows a session another made, and a sign-out ends it everywhere. The store holds only the SHA-256
/// of each id. Bounded by `ConsoleSessionLimits.capacity` per app: expired sessions, then the app's
/// least recently used beyond it, are dropped whenever one is created, so another tenant's sign-ins
/// never sign this one's operators out.
public final class ConsoleSessions: Sendable {
    let limits: ConsoleSessionLimits
    let clock: any WallClock
    let store: any DeliveryStore
    /// The apps' keys as this replica's configuration has them: a session lives only while its app still
    /// has the key it signed in with.
    let keyring: APIKeyring
    let logger: Logger

    /// Sessions in `store`, timed by `clock`, each alive while `keyring` holds its key for its app.
    public init(
        limits: ConsoleSessionLimits = ConsoleSessionLimits(), store: any DeliveryStore, clock: any WallClock,
        keyring: APIKeyring, logger: Logger = .disabled
    ) {
        self.limits = limits
        self.store = store
        self.clock = clock
        self.keyring = keyring
        self.logger = logger.with(["component": "console"])
    }

    /// Starts a session for `app`, ending that app's least recently used one when it has `capacity`.
    public func create(app: AppID, keyFingerprint: String) throws -> ConsoleSession {
        let now = clock.now()
        let session = ConsoleSession(
            id: Self.randomToken(), app: app, keyFingerprint: keyFingerprint, csrfToken: Self.randomToken(),
            createdAt: now, lastSeenAt: now)
        try store.transaction { tx in
            try tx.trimConsoleSessions(
                app: app.rawValue, createdBefore: now - limits.lifetime, lastSeenBefore: now - limits.idleTimeout,
                keeping: limits.capacity - 1)
            try tx.saveConsoleSession(
                ConsoleSessionRecord(
                    idDigest: Self.digest(session.id), app: app.rawValue, keyFingerprint: keyFingerprint,
                    csrfToken: session.csrfToken, createdAt: now, lastSeenAt: now))
        }
        return session
    }

    /// The live session with this id, marked as used now; nil when unknown, expired, or signed in with a
    /// key its app no longer has (rotated, or the app removed, even if added again since), and then
    /// forgotten. Checked at each request, so every replica ends it once its configuration has the change.
    public func session(id: String) throws -> ConsoleSession? {
        let now = clock.now()
        let digest = Self.digest(id)
        return try store.transaction { tx -> ConsoleSession? in
            guard var record = try tx.consoleSession(idDigest: digest) else { return nil }
            guard isLive(record, at: now) else {
                try tx.deleteConsoleSession(idDigest: digest)
                return nil
            }
            // Sign-in stores only an app the keyring named, so a stored app that is no AppID is gone too.
            guard let app = AppID(record.app), keyring.holds(app: app, keyFingerprint: record.keyFingerprint) else {
                try tx.deleteConsoleSession(idDigest: digest)
                logger.notice(
                    "console.session_ended",
                    ["app": record.app, "keyFingerprint": record.keyFingerprint, "reason": "key_revoked"])
                return nil
            }
            record.lastSeenAt = now
            try tx.saveConsoleSession(record)
            return ConsoleSession(
                id: id, app: app, keyFingerprint: record.keyFingerprint, csrfToken: record.csrfToken,
                createdAt: record.createdAt, lastSeenAt: now)
        }
    }

    /// Ends a session (sign-out), on every replica.
    public func end(id: String) throws {
        let digest = Self.digest(id)
        try store.transaction { try $0.deleteConsoleSession(idDigest: digest) }
    }

    /// Sessions held now, expired ones included until they are trimmed (tests).
    public func count() throws -> Int { try store.transaction { try $0.consoleSessionCount() } }

    func isLive(_ session: ConsoleSessionRecord, at now: Date) -> Bool {
        now.timeIntervalSince(session.createdAt) < limits.lifetime
            && now.timeIntervalSince(session.lastSeenAt) < limits.idleTimeout
    }

    /// What the store keeps in place of the id: its hex SHA-256.
    static func digest(_ id: String) -> String { String(hexEncoding: SHA256.hash(Array(id.utf8))) }

    /// 32 random bytes in hex: unguessable, and safe in a cookie and a form field as is.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
            .joined()
    }

    /// Compares secrets in time independent of where they first differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
