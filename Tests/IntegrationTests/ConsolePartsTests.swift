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

    @Test("the sampler turns counters into rates per outcome, means the lag per reading, and keeps a bounded ring")
    func samplerRates() throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let metrics = MetricsRegistry()
        metrics.declareHistogram("droptrack_fanout_lag_seconds", help: "lag", buckets: [1, 10])
        let sampler = MetricSampler(metrics: metrics, store: MemoryStore(), clock: clock, interval: 5, capacity: 4)
        sampler.sample()
        #expect(sampler.samples.isEmpty, "the first reading is the baseline")
        metrics.increment("droptrack_sends_total", ["provider": "apns", "outcome": "success", "reason": "ok"], by: 40)
        metrics.increment("droptrack_sends_total", ["provider": "fcm", "outcome": "success", "reason": "ok"], by: 10)
        metrics.increment("droptrack_sends_total", ["provider": "fcm", "outcome": "failure", "reason": "x"], by: 5)
        metrics.observe("droptrack_fanout_lag_seconds", 1)
        metrics.observe("droptrack_fanout_lag_seconds", 3)
        clock.advance(by: 5)
        sampler.sample()
        let first = try #require(sampler.samples.last)
        #expect(first.sendsPerSecond["success"] == 10 && first.sendsPerSecond["failure"] == 1)
        #expect(first.fanoutLagSeconds == 2 && first.outboxDepth == 0)
        clock.advance(by: 5)
        sampler.sample()
        #expect(sampler.samples.last?.sendsPerSecond["success"] == 0 && sampler.samples.last?.fanoutLagSeconds == nil)
        for _ in 0..<10 {
            clock.advance(by: 5)
            sampler.sample()
        }
        #expect(sampler.samples.count == 4, "bounded by capacity")
    }
}
