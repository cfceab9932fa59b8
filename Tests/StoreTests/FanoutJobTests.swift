import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

@Suite("Fan-out range jobs, run against every engine")
struct FanoutJobTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    /// Claims every due range of "app" as `owner`.
    private func claimAll(_ store: any DeliveryStore, owner: String = "w1", at: Date) throws -> [FanoutJob] {
        try store.transaction {
            try $0.claimFanout(app: "app", limit: FanoutJob.rangeCount, owner: owner, until: at + 60, now: at)
        }
    }

    @Test("the ranges cover every string once, hex fingerprints by their first digit")
    func bounds() {
        for sample in ["", "0", "0fff", "1", "9zz", "A", "a0", "f", "ffff", "g", "~"] {
            #expect(
                (0..<FanoutJob.rangeCount).filter { FanoutJob.contains($0, Fingerprint(rawValue: sample)) }.count == 1,
                "\(sample)")
        }
        #expect(
            FanoutJob.contains(0, fingerprint("0123")) && FanoutJob.contains(10, fingerprint("a123"))
                && FanoutJob.contains(15, fingerprint("f123")))
    }

    @Test(
        "a request writes 16 rows whatever the audience; a burst raises the version of the rows (coalescing)",
        arguments: StoreEngine.allCases)
    func requestCoalesces(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction { (tx) throws in
            try tx.requestFanout(app: "app", activityId: "a1", version: 2, availableAt: now, now: now)
            try tx.requestFanout(app: "app", activityId: "a1", version: 4, availableAt: now + 1, now: now + 1)
            try tx.requestFanout(app: "app", activityId: "a1", version: 3, availableAt: now + 2, now: now + 2)
        }
        let jobs = try store.transaction { try $0.fanoutJobs(app: "app", activityId: "a1") }
        #expect(jobs.map(\.range) == Array(0..<16))
        #expect(jobs.allSatisfy { $0.requestedVersion == 4 && $0.passVersion == 4 && $0.cursor == nil })
        #expect(jobs.allSatisfy { $0.firstQueuedAt == now && $0.availableAt == now })
        try store.transaction { (tx) throws in
            #expect(try tx.pendingOutbox(app: "app", activityId: "a1") == 16)
            #expect(try tx.hasPendingOutbox(app: "app", activityId: "a1"))
            #expect(try !tx.hasPendingOutbox(app: "app", activityId: "a2"))
            #expect(try tx.outboxStats() == OutboxStats(depth: 16, oldestQueuedAt: now, deadLetters: 0))
            #expect(try tx.appsWithDueWork(now: now) == ["app"])
        }
    }

    @Test(
        "a pass streams the range's valid update tokens in fingerprint order after the committed cursor",
        arguments: StoreEngine.allCases)
    func streamsInOrder(engine: StoreEngine) throws {
        let store = try engine.make()
        let tokens = (0..<200).map { sampleToken(device: "d\($0)") }
        var invalid = sampleToken(device: "gone")
        invalid.invalidatedAt = now
        let otherActivity = sampleToken(device: "x", activity: "a2")
        let subscription = sampleToken(kind: .channelSubscription, device: "s")
        try store.transaction { try $0.saveTokens(tokens + [invalid, otherActivity, subscription]) }
        #expect(try store.transaction { try $0.validUpdateTokenCount(app: "app", activityId: "a1") } == 200)
        var seen: [Fingerprint] = []
        for range in 0..<FanoutJob.rangeCount {
            var cursor: Fingerprint? = nil
            while true {
                let batch = try store.transaction {
                    try $0.fanoutTokens(app: "app", activityId: "a1", range: range, after: cursor, limit: 7)
                }
                #expect(
                    batch.allSatisfy { token in
                        FanoutJob.contains(range, token.fingerprint) && cursor.map { token.fingerprint > $0 } ?? true
                    })
                #expect(batch.map(\.fingerprint) == batch.map(\.fingerprint).sorted())
                seen += batch.map(\.fingerprint)
                // Bounded, so a cursor that does not move fails the test instead of looping.
                guard let last = batch.last, batch.count == 7, seen.count <= tokens.count else { break }
                cursor = last.fingerprint
            }
        }
        #expect(seen == tokens.map(\.fingerprint).sorted())
    }

    @Test(
        "a claim leases the ranges; the cursor moves only for the lease holder; a lost lease resumes at the committed cursor",
        arguments: StoreEngine.allCases)
    func leases(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction {
            try $0.requestFanout(app: "app", activityId: "a1", version: 2, availableAt: now, now: now)
        }
        let claimed = try claimAll(store, at: now)
        #expect(claimed.count == 16 && claimed.allSatisfy { $0.claimedBy == "w1" && !$0.resumed })
        #expect(try claimAll(store, owner: "w2", at: now + 1).isEmpty)
        #expect(try store.transaction { try $0.outboxStats().depth } == 16)
        // w1 commits one batch of range 3, then dies holding it again.
        let advanced = try store.transaction {
            try $0.advanceFanout(
                app: "app", activityId: "a1", range: 3, cursor: fingerprint("3abc"), summary: "{}", owner: "w1",
                availableAt: now + 2
            )
        }
        #expect(advanced)
        let again = try claimAll(store, at: now + 2)
        #expect(again.map(\.range) == [3] && again.first?.cursor == fingerprint("3abc") && again.first?.summary == "{}")
        // After the leases end, w2 takes the ranges over, resumed, range 3 at its committed cursor.
        let taken = try claimAll(store, owner: "w2", at: now + 70)
        #expect(taken.count == 16 && taken.allSatisfy(\.resumed))
        #expect(taken.first { $0.range == 3 }?.cursor == fingerprint("3abc"))
        let stale = try store.transaction {
            try $0.advanceFanout(
                app: "app", activityId: "a1", range: 3, cursor: fingerprint("3fff"), summary: nil, owner: "w1",
                availableAt: now)
        }
        #expect(!stale)
        #expect(
            try store.transaction {
                try $0.finishFanoutPass(app: "app", activityId: "a1", range: 3, sentVersion: 0, owner: "w1", now: now)
            } == .lost)
        #expect(
            try store.transaction { try $0.fanoutJobs(app: "app", activityId: "a1") }.first { $0.range == 3 }?.cursor
                == fingerprint("3abc"))
    }

    @Test(
        "a pass ends by removing the range, or starting over from the beginning for a version requested during it",
        arguments: StoreEngine.allCases)
    func passEnds(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction {
            try $0.requestFanout(app: "app", activityId: "a1", version: 2, availableAt: now, now: now)
        }
        _ = try claimAll(store, at: now)
        try store.transaction {
            _ = try $0.advanceFanout(
                app: "app", activityId: "a1", range: 0, cursor: fingerprint("0abc"), summary: "{}", owner: "w1",
                availableAt: now + 1
            )
        }
        // Version 3 arrives while the pass of version 2 is under way: range 0 is past its start.
        try store.transaction {
            try $0.requestFanout(app: "app", activityId: "a1", version: 3, availableAt: now, now: now)
        }
        let jobs = try store.transaction { try $0.fanoutJobs(app: "app", activityId: "a1") }
        #expect(jobs.allSatisfy { $0.requestedVersion == 3 && $0.passVersion == 2 })
        #expect(
            try store.transaction {
                try $0.finishFanoutPass(app: "app", activityId: "a1", range: 1, sentVersion: 0, owner: "w1", now: now)
            } == .restarted(version: 3))
        let zero = try claimAll(store, at: now + 1)
        #expect(zero.map(\.range) == [0, 1])
        #expect(zero.first?.passVersion == 2 && zero.first?.cursor == fingerprint("0abc"))
        // Range 1 started over: its claim takes the requested version as the pass's.
        #expect(zero.last?.passVersion == 3 && zero.last?.cursor == nil)
        #expect(
            try store.transaction {
                try $0.finishFanoutPass(app: "app", activityId: "a1", range: 1, sentVersion: 0, owner: "w1", now: now)
            } == .removed)
        let restarted = try store.transaction {
            try $0.finishFanoutPass(app: "app", activityId: "a1", range: 0, sentVersion: 2, owner: "w1", now: now + 1)
        }
        #expect(restarted == .restarted(version: 3))
        // Range 2's sends all carried version 3 already (a send reads the newest version when it goes out):
        // its pass of version 2 needs no second pass for 3.
        #expect(
            try store.transaction {
                try $0.finishFanoutPass(app: "app", activityId: "a1", range: 2, sentVersion: 3, owner: "w1", now: now)
            } == .removed)
        let left = try store.transaction { try $0.fanoutJobs(app: "app", activityId: "a1") }
        #expect(left.count == 14 && left.first { $0.range == 0 }.map { $0.cursor == nil && $0.summary == nil } == true)
        try store.transaction { try $0.deleteFanout(app: "app", activityId: "a1", range: 4, owner: "w1") }
        #expect(try store.transaction { try $0.fanoutJobs(app: "app", activityId: "a1") }.count == 13)
    }
}
