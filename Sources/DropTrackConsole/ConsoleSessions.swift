import DropTrackCore
import Foundation
import Synchronization

/// One signed-in operator: the app whose key they gave (never the key itself) and the CSRF token
/// their forms must carry.
public struct ConsoleSession: Sendable, Equatable {
    /// The random id in the cookie.
    public var id: String
    /// The app the key belongs to: every page shows this app's data only.
    public var app: String
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
    /// Sessions kept at most; signing in past it ends the least recently used one.
    public var capacity: Int

    /// 12 hours, 1 hour idle, 256 sessions.
    public init(lifetime: TimeInterval = 12 * 3600, idleTimeout: TimeInterval = 3600, capacity: Int = 256) {
        self.lifetime = lifetime
        self.idleTimeout = idleTimeout
        self.capacity = max(1, capacity)
    }
}

/// The console's sessions, in memory: a restart signs everyone out, which is the safe side. Bounded by
/// `ConsoleSessionLimits.capacity`; expired sessions are dropped whenever one is looked up or created.
public final class ConsoleSessions: Sendable {
    let limits: ConsoleSessionLimits
    let clock: any WallClock
    private let sessions = Mutex<[String: ConsoleSession]>([:])

    /// Creates an empty set of sessions on `clock`.
    public init(limits: ConsoleSessionLimits = ConsoleSessionLimits(), clock: any WallClock) {
        self.limits = limits
        self.clock = clock
    }

    /// Starts a session for `app`, ending the least recently used one when full.
    public func create(app: String, keyFingerprint: String) -> ConsoleSession {
        let now = clock.now()
        let session = ConsoleSession(
            id: Self.randomToken(), app: app, keyFingerprint: keyFingerprint, csrfToken: Self.randomToken(),
            createdAt: now, lastSeenAt: now)
        sessions.withLock { sessions in
            sessions = sessions.filter { isLive($0.value, at: now) }
            if sessions.count >= limits.capacity,
                let oldest = sessions.values.min(by: { $0.lastSeenAt < $1.lastSeenAt })
            {
                sessions[oldest.id] = nil
            }
            sessions[session.id] = session
        }
        return session
    }

    /// The live session with this id, marked as used now; nil when unknown or expired (and then forgotten).
    public func session(id: String) -> ConsoleSession? {
        let now = clock.now()
        return sessions.withLock { sessions -> ConsoleSession? in
            guard var session = sessions[id] else { return nil }
            guard isLive(session, at: now) else {
                sessions[id] = nil
                return nil
            }
            session.lastSeenAt = now
            sessions[id] = session
            return session
        }
    }

    /// Ends a session (sign-out).
    public func end(id: String) { _ = sessions.withLock { $0.removeValue(forKey: id) } }

    /// Sessions held now, expired ones included until the next lookup (tests).
    public var count: Int { sessions.withLock { $0.count } }

    func isLive(_ session: ConsoleSession, at now: Date) -> Bool {
        now.timeIntervalSince(session.createdAt) < limits.lifetime
            && now.timeIntervalSince(session.lastSeenAt) < limits.idleTimeout
    }

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
