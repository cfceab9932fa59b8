import DropTrackAPI
import DropTrackConsole
import DropTrackCore
import DropTrackDispatch
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// The console's parts without HTTP: sessions are bounded, the sampler's ring holds rates.
@Suite("Console parts")
struct ConsolePartsTests {
    /// A keyring of app1 (key `key-app1`) and app2 (`key-app2`), as a configuration holds them.
    static let keyring = APIKeyring(apps: [
        AppConfiguration(id: "app1", apiKeyHashes: [AppConfiguration.hash(of: "key-app1")]),
        AppConfiguration(id: "app2", apiKeyHashes: [AppConfiguration.hash(of: "key-app2")]),
    ])

    static func fingerprint(_ key: String) -> String { Fingerprint(of: key).value }

    @Test(
        "sessions are bounded: signing in past the capacity ends the least recently used one",
        arguments: StoreEngine.allCases)
    func sessionCapacity(engine: StoreEngine) throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let sessions = ConsoleSessions(
            limits: ConsoleSessionLimits(capacity: 3), store: try engine.make(), clock: clock, keyring: Self.keyring)
        var made: [ConsoleSession] = []
        for _ in 0..<3 {
            made.append(
                try sessions.create(app: try AppID(validating: "app1"), keyFingerprint: Self.fingerprint("key-app1")))
            clock.advance(by: 1)
        }
        #expect(try sessions.session(id: made[0].id) != nil, "used now: the least recently used is the second")
        let fourth = try sessions.create(
            app: try AppID(validating: "app1"), keyFingerprint: Self.fingerprint("key-app1"))
        #expect(try sessions.count() == 3)
        #expect(try sessions.session(id: made[1].id) == nil)
        #expect(try sessions.session(id: made[0].id) != nil && sessions.session(id: fourth.id) != nil)
        #expect(Set(made.map(\.id) + [fourth.id]).count == 4 && fourth.id.count == 64, "random 256-bit ids")
        #expect(fourth.csrfToken != fourth.id)
        #expect(try sessions.session(id: fourth.id)?.csrfToken == fourth.csrfToken)
    }

    @Test(
        "the capacity is per app: another app's sign-ins past it end that app's own sessions, never this one's",
        arguments: StoreEngine.allCases)
    func capacityPerApp(engine: StoreEngine) throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let sessions = ConsoleSessions(
            limits: ConsoleSessionLimits(capacity: 3), store: try engine.make(), clock: clock, keyring: Self.keyring)
        let operator2 = try sessions.create(
            app: try AppID(validating: "app2"), keyFingerprint: Self.fingerprint("key-app2"))
        clock.advance(by: 1)
        var app1: [ConsoleSession] = []
        for _ in 0..<10 {
            app1.append(
                try sessions.create(app: try AppID(validating: "app1"), keyFingerprint: Self.fingerprint("key-app1")))
            clock.advance(by: 1)
        }
        #expect(try sessions.session(id: operator2.id) != nil, "the oldest session of all, but app2's")
        #expect(
            try app1.map { try sessions.session(id: $0.id) != nil } == Array(repeating: false, count: 7) + [
                true, true, true,
            ])
        #expect(try sessions.count() == 4)
    }

    @Test(
        "a session lives while its app has the key it signed in with: a rotated key or a removed app ends it, and re-adding the app does not bring it back",
        arguments: StoreEngine.allCases)
    func sessionBoundToKey(engine: StoreEngine) throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let store = try engine.make()
        // Replicas on one store: each checks sessions against its own configuration's keys.
        func replica(_ apps: [AppConfiguration]) -> ConsoleSessions {
            ConsoleSessions(store: store, clock: clock, keyring: APIKeyring(apps: apps))
        }
        let before = replica([
            AppConfiguration(id: "app1", apiKeyHashes: [AppConfiguration.hash(of: "key-a")]),
            AppConfiguration(id: "app2", apiKeyHashes: [AppConfiguration.hash(of: "key-app2")]),
        ])
        let opened = try before.create(app: try AppID(validating: "app1"), keyFingerprint: Self.fingerprint("key-a"))
        let other = try before.create(app: try AppID(validating: "app2"), keyFingerprint: Self.fingerprint("key-app2"))
        let keptOld = replica([
            AppConfiguration(
                id: "app1", apiKeyHashes: [AppConfiguration.hash(of: "key-a"), AppConfiguration.hash(of: "key-b")])
        ])
        #expect(
            try keptOld.session(id: opened.id) != nil, "rotate-key --keep-old: key A still works, so does its session")
        let rotated = replica([
            AppConfiguration(id: "app1", apiKeyHashes: [AppConfiguration.hash(of: "key-b")]),
            AppConfiguration(id: "app2", apiKeyHashes: [AppConfiguration.hash(of: "key-app2")]),
        ])
        #expect(try rotated.session(id: opened.id) == nil, "key A rotated away")
        #expect(try before.session(id: opened.id) == nil, "ended in the store: gone for every replica")
        #expect(try rotated.session(id: other.id) != nil, "app2's key did not change")

        let second = try before.create(app: try AppID(validating: "app1"), keyFingerprint: Self.fingerprint("key-a"))
        let removed = replica([AppConfiguration(id: "app2", apiKeyHashes: [AppConfiguration.hash(of: "key-app2")])])
        #expect(try removed.session(id: second.id) == nil, "app1 removed")
        let third = try before.create(app: try AppID(validating: "app1"), keyFingerprint: Self.fingerprint("key-a"))
        let readded = replica([AppConfiguration(id: "app1", apiKeyHashes: [AppConfiguration.hash(of: "key-c")])])
        #expect(try readded.session(id: third.id) == nil, "app1 added again: a new key, not the session's")
        #expect(try before.session(id: third.id) == nil)
    }

    @Test(
        "a session ends after an hour idle or 12 hours in all, and one found ended is dropped",
        arguments: StoreEngine.allCases)
    func sessionExpiry(engine: StoreEngine) throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let sessions = ConsoleSessions(store: try engine.make(), clock: clock, keyring: Self.keyring)
        let idle = try sessions.create(app: try AppID(validating: "app1"), keyFingerprint: Self.fingerprint("key-app1"))
        let busy = try sessions.create(app: try AppID(validating: "app1"), keyFingerprint: Self.fingerprint("key-app1"))
        clock.advance(by: 1800)
        #expect(try sessions.session(id: busy.id) != nil)
        clock.advance(by: 1800)
        #expect(try sessions.session(id: idle.id) == nil, "an hour without a request")
        #expect(try sessions.session(id: busy.id) != nil)
        #expect(try sessions.count() == 1)
        // Used every half hour until a second before its twelfth hour: still live, then not.
        for _ in 0..<21 {
            clock.advance(by: 1800)
            #expect(try sessions.session(id: busy.id) != nil)
        }
        clock.advance(by: 1799)
        #expect(try sessions.session(id: busy.id) != nil)
        clock.advance(by: 1)
        #expect(try sessions.session(id: busy.id) == nil, "12 hours after sign-in, however busy")
        #expect(try sessions.count() == 0)
    }

    @Test("the sampler turns each app's counters into rates per outcome, means its lag, and keeps a bounded ring")
    func samplerRates() throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let metrics = MetricsRegistry()
        metrics.declareHistogram("droptrack_fanout_lag_seconds", help: "lag", buckets: [1, 10])
        let store = MemoryStore()
        let sampler = MetricSampler(metrics: metrics, store: store, clock: clock, interval: 5, capacity: 4)
        sampler.sample()
        #expect(sampler.samples(app: "app1").isEmpty, "the first reading is the baseline")
        func sent(_ app: String, _ provider: String, _ outcome: String, _ count: Double) {
            metrics.increment(
                "droptrack_sends_total", ["app": app, "provider": provider, "outcome": outcome, "reason": "r"],
                by: count)
        }
        sent("app1", "apns", "success", 40)
        sent("app1", "fcm", "success", 10)
        sent("app1", "fcm", "failure", 5)
        sent("app2", "apns", "success", 500)
        metrics.observe("droptrack_fanout_lag_seconds", 1, ["app": "app1"])
        metrics.observe("droptrack_fanout_lag_seconds", 3, ["app": "app1"])
        metrics.observe("droptrack_fanout_lag_seconds", 30, ["app": "app2"])
        try store.transaction { tx in
            try tx.insertActivity(sampleActivity("app2"))
            try tx.enqueue(
                app: "app2", activityId: "a1", fingerprints: [Fingerprint(of: "t1"), Fingerprint(of: "t2")], version: 1,
                availableAt: clock.now(), now: clock.now())
        }
        clock.advance(by: 5)
        sampler.sample()
        let first = try #require(sampler.samples(app: "app1").last)
        #expect(first.sendsPerSecond["success"] == 10 && first.sendsPerSecond["failure"] == 1)
        #expect(first.fanoutLagSeconds == 2 && first.outboxDepth == 0, "app2's lag and waiting sends are its own")
        let other = try #require(sampler.samples(app: "app2").last)
        #expect(other.sendsPerSecond["success"] == 100 && other.fanoutLagSeconds == 30 && other.outboxDepth == 2)
        #expect(sampler.samples(app: "app3").last == .idle(at: clock.now()), "an app with nothing reads as idle")
        clock.advance(by: 5)
        sampler.sample()
        let second = sampler.samples(app: "app1").last
        #expect(second?.sendsPerSecond["success"] == 0 && second?.fanoutLagSeconds == nil)
        for _ in 0..<10 {
            clock.advance(by: 5)
            sampler.sample()
        }
        #expect(sampler.samples(app: "app1").count == 4, "bounded by capacity")
    }
}
