import DropTrackStore
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

@testable import DropTrackDispatch

/// The circuit breaker, event by event, with no network.
@Suite("Provider circuit")
struct ProviderCircuitTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("closed: every send goes, and answers keep it closed")
    func closedSends() {
        var circuit = ProviderCircuit()
        #expect(circuit.permit(now: t0) == .send)
        #expect(circuit.record(.answered, now: t0) == nil)
        #expect(circuit.record(.inDoubt, now: t0) == nil)
        #expect(circuit.phase == .closed)
    }

    @Test("a send that never left opens it; sends wait until the backoff ends, then exactly one probes")
    func opensThenProbes() {
        var circuit = ProviderCircuit(baseDelay: 1, maximumDelay: 60, probeTimeout: 30)
        #expect(circuit.record(.notSent, now: t0, random: 0.5) == .opened(retryIn: 1))
        #expect(circuit.phase == .open(until: t0 + 1))
        #expect(circuit.permit(now: t0 + 0.5) == .hold(until: t0 + 1))
        // Sends that were already out report late: they neither extend the wait nor count as failures.
        #expect(circuit.record(.notSent, now: t0 + 0.6, random: 0.5) == nil)
        #expect(circuit.failures == 1)
        #expect(circuit.permit(now: t0 + 1) == .probe)
        #expect(circuit.permit(now: t0 + 1.1) == .hold(until: t0 + 31))
        #expect(circuit.permit(now: t0 + 2) == .hold(until: t0 + 31))
    }

    @Test("a failed probe doubles the wait up to the cap; a probe that gets through closes it")
    func backoffAndRecovery() {
        var circuit = ProviderCircuit(baseDelay: 1, maximumDelay: 8, probeTimeout: 30)
        var now = t0
        _ = circuit.record(.notSent, now: now, random: 0.5)
        var waits: [TimeInterval] = []
        for _ in 0..<5 {
            guard case .open(let until) = circuit.phase else { Issue.record("not open: \(circuit.phase)"); return }
            now = until
            #expect(circuit.permit(now: now) == .probe)
            #expect(circuit.record(.notSent, now: now, random: 0.5) == nil)
            guard case .open(let next) = circuit.phase else { Issue.record("not open: \(circuit.phase)"); return }
            waits.append(next.timeIntervalSince(now))
        }
        #expect(waits == [2, 4, 8, 8, 8])
        now = now + 8
        #expect(circuit.permit(now: now) == .probe)
        #expect(circuit.record(.answered, now: now + 0.1) == .closed(afterSeconds: (now + 0.1).timeIntervalSince(t0)))
        #expect(circuit.phase == .closed)
        #expect(circuit.failures == 0)
        #expect(circuit.permit(now: now + 0.2) == .send)
    }

    @Test("a probe answered in doubt (the connection dropped after writing) still proves the provider reachable")
    func inDoubtCloses() {
        var circuit = ProviderCircuit()
        _ = circuit.record(.notSent, now: t0, random: 0)
        #expect(circuit.permit(now: t0 + 5) == .probe)
        #expect(circuit.record(.inDoubt, now: t0 + 5) == .closed(afterSeconds: 5))
    }

    @Test("a probe that never reports frees the probe slot after probeTimeout")
    func lostProbe() {
        var circuit = ProviderCircuit(baseDelay: 1, maximumDelay: 60, probeTimeout: 30)
        _ = circuit.record(.notSent, now: t0, random: 0.5)
        #expect(circuit.permit(now: t0 + 1) == .probe)
        #expect(circuit.permit(now: t0 + 30) == .hold(until: t0 + 31))
        #expect(circuit.permit(now: t0 + 31) == .probe)
    }

    @Test("jitter spreads the wait between 75% and 125% of the backoff")
    func jitter() {
        var low = ProviderCircuit(baseDelay: 4)
        var high = ProviderCircuit(baseDelay: 4)
        #expect(low.record(.notSent, now: t0, random: 0) == .opened(retryIn: 3))
        #expect(high.record(.notSent, now: t0, random: 1) == .opened(retryIn: 5))
    }

    @Test("releasing an unsent row gives its attempt back, on every engine", arguments: StoreEngine.allCases)
    func releaseGivesAttemptBack(engine: StoreEngine) throws {
        let store = try engine.make()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try store.transaction { tx in
            try tx.enqueue(
                app: "app", activityId: "a1", fingerprints: [fingerprint("f1")], version: 1, availableAt: now, now: now)
        }
        for round in 0..<3 {
            let at = now + Double(round)
            let rows = try store.transaction {
                try $0.claim(app: "app", limit: 10, owner: "w", until: at + 60, now: at)
            }
            #expect(rows.count == 1)
            #expect(rows.first?.attempts == 1, "round \(round): an outage must not use up attempts")
            #expect(rows.first?.inDoubt == false)
            try store.transaction {
                try $0.releaseUnsent(ids: rows.map(\.id), owner: "w", availableAt: at + 1, error: "unreachable")
            }
            let early = try store.transaction {
                try $0.claim(app: "app", limit: 10, owner: "w", until: at + 60, now: at)
            }
            #expect(early.isEmpty, "the row waits until availableAt")
        }
        // Another worker's release does not touch a row it does not hold.
        let rows = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w", until: now + 70, now: now + 3)
        }
        try store.transaction {
            try $0.releaseUnsent(ids: rows.map(\.id), owner: "other", availableAt: now + 3, error: "x")
        }
        #expect(
            try store.transaction { try $0.claim(app: "app", limit: 10, owner: "w", until: now + 70, now: now + 4) }
                .isEmpty)
    }
}

@Suite("Registration reads only valid tokens")
struct ValidTokensTests {
    @Test("validTokens leaves out the device's invalidated tokens, on every engine", arguments: StoreEngine.allCases)
    func validTokensOnly(engine: StoreEngine) throws {
        let store = try engine.make()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let old = sampleToken(device: "d1", at: now)
        let live = sampleToken(device: "d1", at: now + 1)
        let elsewhere = sampleToken(device: "d2", at: now)
        try store.transaction { tx in
            try tx.saveTokens([old, live, elsewhere])
            try tx.invalidateTokens(app: "app", fingerprints: [old.fingerprint], reason: .superseded, at: now + 2)
        }
        let valid = try store.transaction { try $0.validTokens(app: "app", deviceIds: ["d1"]) }
        #expect(valid.map(\.fingerprint) == [live.fingerprint])
        let all = try store.transaction { try $0.tokens(app: "app", deviceIds: ["d1"]) }
        #expect(Set(all.map(\.fingerprint)) == [old.fingerprint, live.fingerprint])
    }
}
