import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

@Suite("Outbox destinations: tokens and broadcast channels, in the column form rows always had")
struct OutboxDestinationTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test("the stored form: a fingerprint, or channel:<id>; empty ones name nothing")
    func storedForm() {
        #expect(OutboxDestination.token(fingerprint: fingerprint("0123456789abcdef")).stored == "0123456789abcdef")
        #expect(OutboxDestination.channel(id: "dHN0LTEy").stored == "channel:dHN0LTEy")
        #expect(OutboxDestination(stored: "channel:dHN0LTEy") == .channel(id: "dHN0LTEy"))
        #expect(OutboxDestination(stored: "0123456789abcdef") == .token(fingerprint: fingerprint("0123456789abcdef")))
        #expect(OutboxDestination(stored: "channel:") == nil)
        #expect(OutboxDestination(stored: "") == nil)
    }

    @Test("tokens and channels come back from a claim as they were queued", arguments: StoreEngine.allCases)
    func roundTrip(engine: StoreEngine) throws {
        let store = try engine.make()
        let destinations: [OutboxDestination] = [.token(fingerprint: fingerprint("f1")), .channel(id: "c1")]
        try store.transaction {
            try $0.enqueue(
                app: "app", activityId: "a1", destinations: destinations + destinations, version: 1, availableAt: now,
                now: now)
        }
        let claimed = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w", until: now + 30, now: now)
        }
        #expect(claimed.map(\.destination) == destinations)
    }

    @Test(
        "a row queued to a channel before OutboxDestination existed reads as that channel",
        arguments: CorruptibleStore.engines)
    func olderRow(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        try corruptible.run(
            """
            INSERT INTO outbox (app, activity_id, token_fingerprint, requested_version, available_at, first_queued_at)
            VALUES ('app', 'a1', 'channel:older', 3, 1796000000, 1796000000)
            """)
        let claimed = try corruptible.store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w", until: now + 30, now: now)
        }
        #expect(claimed.map(\.destination) == [.channel(id: "older")])
        #expect(claimed.map(\.requestedVersion) == [3])
    }

    @Test(
        "a destination that names nothing is a corrupt row: a claim sets it aside as a dead letter naming the column",
        arguments: CorruptibleStore.engines)
    func corrupt(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        try corruptible.store.transaction {
            try $0.enqueue(
                app: "app", activityId: "a1", destinations: [.channel(id: "c1")], version: 1, availableAt: now,
                now: now)
        }
        try corruptible.run("UPDATE outbox SET token_fingerprint = 'channel:'")
        let claimed = try corruptible.store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w", until: now + 30, now: now)
        }
        #expect(claimed.isEmpty)
        #expect(try corruptible.store.transaction { try $0.outboxStats() }.deadLetters == 1)
        let reason = try corruptible.query("SELECT last_error FROM dead_letters")
        #expect(reason.contains("token_fingerprint") && reason.contains("outbox row"), "\(reason)")
    }
}
