import DropTrackCore
import Foundation
import Synchronization

/// A token bucket per key (an API key, a user of an app, a client address): `rate` requests per second
/// on average, bursts up to `burst`. Buckets are per process; with several replicas each enforces its
/// own share.
///
/// The keys come from callers (every user a backend mints a credential for, every address that tries
/// to sign in), so the map is pruned: a bucket idle long enough to have refilled is the same as no
/// bucket and is dropped, and past `capacity` the fullest buckets go first.
public final class RateLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: Date
    }

    struct State {
        var buckets: [String: Bucket] = [:]
        /// A new key arriving at this many buckets prunes first: doubling it after each pass keeps the
        /// cost of pruning a constant per request.
        var pruneAt: Int
    }

    let rate: Double
    let burst: Double
    /// Buckets kept at most.
    let capacity: Int
    let clock: any WallClock
    private let state: Mutex<State>

    /// `rate` ≤ 0 turns limiting off. `capacity` bounds the buckets kept (at least 16).
    public init(rate: Double, burst: Double? = nil, capacity: Int = 100_000, clock: any WallClock) {
        self.rate = rate
        self.burst = burst ?? max(10, rate * 2)
        self.capacity = max(16, capacity)
        self.clock = clock
        state = Mutex(State(pruneAt: min(1024, self.capacity)))
    }

    /// Takes one request from the key's bucket; nil if allowed, else the seconds until one is.
    public func take(_ key: String) -> Double? {
        guard rate > 0 else { return nil }
        let now = clock.now()
        return state.withLock { state -> Double? in
            if state.buckets[key] == nil && state.buckets.count >= state.pruneAt { prune(&state, now: now) }
            var bucket = state.buckets[key] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = refilled(bucket, at: now)
            bucket.updated = now
            defer { state.buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / rate }
            bucket.tokens -= 1
            return nil
        }
    }

    /// How many buckets are kept now (tests, and the bound's check).
    public var count: Int { state.withLock { $0.buckets.count } }

    private func refilled(_ bucket: Bucket, at now: Date) -> Double {
        min(burst, bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * rate)
    }

    /// Drops the buckets that have refilled; if more than three quarters of `capacity` are still
    /// kept, the fullest of them too (each comes back full, which is the least a dropped bucket can
    /// give away).
    private func prune(_ state: inout State, now: Date) {
        state.buckets = state.buckets.filter { refilled($0.value, at: now) < burst }
        let most = capacity * 3 / 4
        if state.buckets.count > most {
            let emptiestFirst = state.buckets.sorted { refilled($0.value, at: now) < refilled($1.value, at: now) }
            state.buckets = Dictionary(uniqueKeysWithValues: emptiestFirst.prefix(most).map { ($0.key, $0.value) })
        }
        state.pruneAt = min(capacity, max(1024, state.buckets.count * 2))
    }
}
