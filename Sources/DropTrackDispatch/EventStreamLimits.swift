import Synchronization

/// How many event streams (`GET /v1/events`) may be open, and how far a subscriber may fall behind.
///
/// Each stream holds one of the HTTP server's connections for as long as it is open, so without a cap one key's
/// streams could take every connection and shut out every other tenant.
public struct EventStreamLimits: Sendable, Equatable {
    /// Streams one API key may hold open at once; the next is refused with 429.
    public var perKey: Int
    /// Streams open at once across all keys; the next is refused with 503. Well below the HTTP server's connection
    /// limit (1,000), so streams can never take every connection.
    public var total: Int
    /// Events of an app kept for subscribers the delivery thread has not reached yet; a subscriber further behind
    /// loses the oldest and is told how many (`event: dropped`).
    public var backlog: Int
    /// What `Retry-After` suggests when a stream is refused: two of the server's 5 s heartbeats, the time a departed
    /// client's stream takes to be noticed and freed (the first write to its socket draws the reset, the second
    /// fails).
    public var retryAfterSeconds: Int

    /// Creates limits; the defaults are the server's.
    public init(perKey: Int = 10, total: Int = 200, backlog: Int = 1024, retryAfterSeconds: Int = 10) {
        self.perKey = max(1, perKey)
        self.total = max(1, total)
        self.backlog = max(1, backlog)
        self.retryAfterSeconds = max(1, retryAfterSeconds)
    }
}

/// Why a new event stream was refused.
public enum EventStreamRefusal: Error, Sendable, Equatable {
    /// The key already holds this many streams (`EventStreamLimits.perKey`).
    case keyLimit(Int)
    /// The server already holds this many streams (`EventStreamLimits.total`).
    case serverLimit(Int)
}

/// One admitted stream's place in the counts, given back when the last reference to it goes: whatever way the
/// stream ends (or never starts), the place cannot leak.
public final class EventStreamAdmission: Sendable {
    private let counts: EventStreamCounts
    private let key: String?

    init(counts: EventStreamCounts, key: String?) {
        self.counts = counts
        self.key = key
    }

    deinit { counts.release(key: key) }
}

/// Open streams, in total and per key.
final class EventStreamCounts: Sendable {
    private let state = Mutex<(total: Int, perKey: [String: Int])>((0, [:]))
    let limits: EventStreamLimits

    init(limits: EventStreamLimits) { self.limits = limits }

    func admit(key: String?) throws(EventStreamRefusal) -> EventStreamAdmission {
        let refusal = state.withLock { state -> EventStreamRefusal? in
            if let key, state.perKey[key, default: 0] >= limits.perKey { return .keyLimit(limits.perKey) }
            guard state.total < limits.total else { return .serverLimit(limits.total) }
            state.total += 1
            if let key { state.perKey[key, default: 0] += 1 }
            return nil
        }
        if let refusal { throw refusal }
        return EventStreamAdmission(counts: self, key: key)
    }

    func release(key: String?) {
        state.withLock { state in
            state.total -= 1
            guard let key, let count = state.perKey[key] else { return }
            // Keys with no stream are forgotten, so the table holds only keys with open streams.
            state.perKey[key] = count > 1 ? count - 1 : nil
        }
    }

    var total: Int { state.withLock { $0.total } }

    func count(key: String) -> Int { state.withLock { $0.perKey[key] ?? 0 } }
}
