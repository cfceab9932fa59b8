import DropTrackConsole
import DropTrackCore
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// The console's parts without HTTP: sessions are bounded, the sampler's ring holds rates.
@Suite("Console parts")
struct ConsolePartsTests {
    @Test(
        "sessions are bounded: signing in past the capacity ends the least recently used one",
        arguments: StoreEngine.allCases)
    func sessionCapacity(engine: StoreEngine) throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let sessions = ConsoleSessions(
            limits: ConsoleSessionLimits(capacity: 3), store: try engine.make(), clock: clock)
        var made: [ConsoleSession] = []
        for index in 0..<3 {
            made.append(try sessions.create(app: "app1", keyFingerprint: "f\(index)"))
            clock.advance(by: 1)
        }
        #expect(try sessions.session(id: made[0].id) != nil, "used now: the least recently used is the second")
        let fourth = try sessions.create(app: "app1", keyFingerprint: "f3")
        #expect(try sessions.count() == 3)
        #expect(try sessions.session(id: made[1].id) == nil)
        #expect(try sessions.session(id: made[0].id) != nil && sessions.session(id: fourth.id) != nil)
        #expect(Set(made.map(\.id) + [fourth.id]).count == 4 && fourth.id.count == 64, "random 256-bit ids")
        #expect(fourth.csrfToken != fourth.id)
        #expect(try sessions.session(id: fourth.id)?.csrfToken == fourth.csrfToken)
    }

    @Test(
        "a session ends after an hour idle or 12 hours in all, and one found ended is dropped",
        arguments: StoreEngine.allCases)
    func sessionExpiry(engine: StoreEngine) throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let sessions = ConsoleSessions(store: try engine.make(), clock: clock)
        let idle = try sessions.create(app: "app1", keyFingerprint: "f1")
        let busy = try sessions.create(app: "app1", keyFingerprint: "f2")
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
