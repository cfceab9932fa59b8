import DropTrackStore
import DropTrackTesting
import Foundation
import Synchronization
import Testing

@Suite("The webhook queue: leased, in order per (endpoint, activity), retried, given up and kept")
struct WebhookQueueTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    func delivery(
        _ id: String, app: String = "app", endpoint: String = "e1", activity: String = "a1", at offset: Double = 0
    ) -> WebhookDelivery {
        WebhookDelivery(
            app: app, endpoint: endpoint, activityId: activity, deliveryId: id, event: "dead_letter",
            body: #"{"id":"\#(id)"}"#, createdAt: now + offset, availableAt: now + offset)
    }

    func claim(_ store: any DeliveryStore, at time: Date, owner: String = "w") throws -> [WebhookDelivery] {
        try store.transaction {
            try $0.claimWebhooks(limit: 10, perEndpoint: 10, owner: owner, until: time + 30, now: time)
        }
    }

    @Test(
        "only the first undelivered delivery of an (endpoint, activity) is claimable", arguments: StoreEngine.allCases)
    func order(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction {
            try $0.enqueueWebhooks([
                delivery("d1"), delivery("d2"), delivery("d3", activity: "a2"), delivery("d4", endpoint: "e2"),
            ])
        }
        let first = try claim(store, at: now)
        #expect(first.map(\.deliveryId) == ["d1", "d3", "d4"])
        #expect(first.allSatisfy { $0.attempts == 1 && $0.body == #"{"id":"\#($0.deliveryId)"}"# })
        // d1 in flight holds d2 back; a second worker gets nothing.
        #expect(try claim(store, at: now, owner: "other").isEmpty)
        // d1 failed and waits for its backoff: d2 still waits behind it.
        try store.transaction {
            try $0.rescheduleWebhook(id: first[0].id, owner: "w", availableAt: now + 10, error: "503")
        }
        #expect(try claim(store, at: now + 1).isEmpty)
        let retried = try claim(store, at: now + 10)
        #expect(retried.map(\.deliveryId) == ["d1"])
        #expect(retried.first?.attempts == 2)
        try store.transaction { try $0.completeWebhook(id: retried[0].id, owner: "w") }
        #expect(try claim(store, at: now + 11).map(\.deliveryId) == ["d2"])
    }

    @Test(
        "a given-up delivery is kept, visible, and no longer holds the next one back", arguments: StoreEngine.allCases)
    func givenUp(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction { try $0.enqueueWebhooks([delivery("d1"), delivery("d2")]) }
        let first = try claim(store, at: now)
        // Another owner cannot settle a row it does not hold.
        try store.transaction { try $0.failWebhook(id: first[0].id, owner: "intruder", error: "x", at: now) }
        #expect(try store.transaction { try $0.webhookStats() } == WebhookQueueStats(pending: 2, failed: 0))
        try store.transaction { try $0.failWebhook(id: first[0].id, owner: "w", error: "503", at: now) }
        #expect(try store.transaction { try $0.webhookStats() } == WebhookQueueStats(pending: 1, failed: 1))
        let kept = try store.transaction { try $0.webhookDeliveries(limit: 10) }
        #expect(kept.first?.failedAt == now && kept.first?.lastError == "503")
        #expect(try claim(store, at: now + 1).map(\.deliveryId) == ["d2"])
    }

    @Test(
        "afterCommit runs once the queued deliveries are visible, and never for a transaction rolled back",
        arguments: StoreEngine.allCases)
    func afterCommit(engine: StoreEngine) throws {
        let store = try engine.make()
        let seen = Mutex<[Int]>([])
        try store.transaction { tx in
            try tx.enqueueWebhooks([delivery("d1")])
            // Runs outside the store's lock, after COMMIT: a claim made there sees the delivery.
            tx.afterCommit { seen.withLock { $0.append((try? claim(store, at: now).count) ?? -1) } }
        }
        #expect(seen.withLock { $0 } == [1])
        #expect(throws: ThrownOnPurpose.self) {
            try store.transaction { tx in
                try tx.enqueueWebhooks([delivery("d2", activity: "a2")])
                tx.afterCommit { seen.withLock { $0.append(-2) } }
                throw ThrownOnPurpose()
            }
        }
        #expect(seen.withLock { $0 } == [1])
        #expect(try store.transaction { try $0.webhookStats() } == WebhookQueueStats(pending: 1, failed: 0))
    }

    @Test(
        "claims go round the endpoints oldest first, each endpoint with at most perEndpoint leased by anyone",
        arguments: StoreEngine.allCases)
    func fairAcrossEndpoints(engine: StoreEngine) throws {
        let store = try engine.make()
        // One app's endpoint has a backlog from before; another app's, with the same endpoint id, one new
        // delivery; a third endpoint, two. Each delivery is about its own activity, so all are due.
        try store.transaction {
            try $0.enqueueWebhooks(
                (1...6).map { delivery("stuck\($0)", app: "a", endpoint: "ops", activity: "s\($0)", at: Double($0)) }
                    + [delivery("other1", app: "b", endpoint: "ops", activity: "o1", at: 100)]
                    + (1...2).map { delivery("third\($0)", app: "a", endpoint: "audit", activity: "t\($0)", at: 50) })
        }
        func claim(limit: Int, owner: String, at time: Date) throws -> [String] {
            try store.transaction {
                try $0.claimWebhooks(limit: limit, perEndpoint: 2, owner: owner, until: time + 30, now: time)
            }.map(\.deliveryId).sorted()
        }
        let later = now + 200
        // Every endpoint's first before any endpoint's second; the backlog's oldest second fills the limit.
        #expect(try claim(limit: 4, owner: "w1", at: later) == ["other1", "stuck1", "stuck2", "third1"])
        // Another worker: "a/ops" is at its cap, "b/ops" has nothing left; "a/audit" has room for one more.
        #expect(try claim(limit: 10, owner: "w2", at: later) == ["third2"])
        #expect(try claim(limit: 10, owner: "w3", at: later).isEmpty)
        // A settled attempt frees its endpoint's slot; a lease that ran out no longer counts against the cap.
        let held = try store.transaction { try $0.webhookDeliveries(limit: 20) }
        let stuck1 = try #require(held.first { $0.deliveryId == "stuck1" })
        try store.transaction { try $0.completeWebhook(id: stuck1.id, owner: "w1") }
        #expect(try claim(limit: 10, owner: "w3", at: later) == ["stuck3"])
        // Once every lease ran out, each endpoint has two to take again; a row whose lease ran out is due
        // from the lease's end, so it comes after the endpoint's older rows.
        #expect(
            try claim(limit: 10, owner: "w4", at: later + 31) == ["other1", "stuck4", "stuck5", "third1", "third2"])
    }

    @Test("a lease that ran out gives the delivery to another worker", arguments: StoreEngine.allCases)
    func leaseEnds(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction { try $0.enqueueWebhooks([delivery("d1")]) }
        #expect(try claim(store, at: now).count == 1)
        #expect(try claim(store, at: now + 29, owner: "other").isEmpty)
        let again = try claim(store, at: now + 31, owner: "other")
        #expect(again.map(\.deliveryId) == ["d1"] && again.first?.attempts == 2)
        // The first worker's late answer no longer settles it.
        try store.transaction { try $0.completeWebhook(id: again[0].id, owner: "w") }
        #expect(try store.transaction { try $0.webhookStats() }.pending == 1)
    }

    @Test("a rolled-back transaction queues nothing", arguments: StoreEngine.allCases)
    func rollback(engine: StoreEngine) throws {
        let store = try engine.make()
        #expect(throws: ThrownOnPurpose.self) {
            try store.transaction { tx in
                try tx.enqueueWebhooks([delivery("d1")])
                throw ThrownOnPurpose()
            }
        }
        #expect(try store.transaction { try $0.webhookStats() } == WebhookQueueStats(pending: 0, failed: 0))
    }

    @Test("a corrupt row is given up with the column named, and the queue goes on", arguments: CorruptibleStore.engines)
    func corrupt(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        try corruptible.store.transaction {
            try $0.enqueueWebhooks([delivery("d1"), delivery("d2", activity: "a2")])
        }
        try corruptible.run("UPDATE webhook_deliveries SET created_at = 'NaN' WHERE delivery_id = 'd1'")
        let claimed = try claim(corruptible.store, at: now)
        #expect(claimed.map(\.deliveryId) == ["d2"])
        #expect(try corruptible.store.transaction { try $0.webhookStats() }.failed == 1)
        let error = #expect(throws: StoreError.self) {
            try corruptible.store.transaction { try $0.webhookDeliveries(limit: 10) }
        }
        #expect(error?.corruptRow?.table == "webhook_deliveries")
        #expect(error?.corruptRow?.column == "created_at")
    }
}
