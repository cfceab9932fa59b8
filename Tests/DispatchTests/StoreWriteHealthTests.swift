import DropTrackCore
import DropTrackStore
import Foundation
import Testing

@testable import DropTrackDispatch

/// What `/readyz` answers from: a refused write marks the store refusing until a write commits, and
/// the probe that finds out runs at most once a second however often readiness is asked.
@Suite("Store write health")
struct StoreWriteHealthTests {
    struct Full: Error {}

    @Test("a refused write marks the store until a write commits; a lost race or a domain refusal does not")
    func marks() {
        let logs = InMemoryLogHandler()
        let health = StoreWriteHealth(logger: Logger(handler: logs, minimumLevel: .info))
        let at = Date(timeIntervalSince1970: 1_796_000_000)
        health.writeFailed(operation: "claim", error: StoreError(.conflict, "raced"), at: at)
        health.writeFailed(operation: "claim", error: Full(), at: at)
        #expect(health.refusal == nil)
        health.writeFailed(operation: "record_outcomes", error: StoreError(.engine, "database or disk is full"), at: at)
        health.markRefused(operation: "api_write", error: "later", at: at + 5)
        #expect(health.refusal == .init(since: at, operation: "record_outcomes", error: "database or disk is full"))
        health.writeCommitted()
        #expect(health.refusal == nil)
        #expect(logs.entries.map(\.message) == ["store.writes_refused", "store.writes_accepted"])
        #expect(logs.entries.first?.metadata["fix"]?.contains("free disk space") == true)
    }

    @Test("while marked, readiness probes at most once a second, and a probe that commits clears the mark")
    func probes() {
        let health = StoreWriteHealth()
        let start = ContinuousClock.now
        var probes = 0
        #expect(health.check(now: start) { probes += 1 } == nil)
        #expect(probes == 0, "a store taking writes is not probed")
        health.markRefused(operation: "api_write", error: "database or disk is full", at: Date())
        let failing: () throws -> Void = {
            probes += 1
            throw Full()
        }
        #expect(health.check(now: start, probe: failing) != nil)
        #expect(health.check(now: start + .milliseconds(500), probe: failing) != nil)
        #expect(probes == 1)
        #expect(health.check(now: start + .milliseconds(1000)) { probes += 1 } == nil)
        #expect(probes == 2)
        #expect(health.refusal == nil)
    }
}
