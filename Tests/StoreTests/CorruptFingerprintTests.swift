import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// Every column that holds a fingerprint reads it through `Fingerprint(validating:)`: text that is not
/// 16 lowercase hex digits is a corrupt row, and the error never repeats the text (it may be a token).
@Suite("A stored fingerprint that is not 16 lowercase hex digits is a corrupt row, on SQLite and PostgreSQL")
struct CorruptFingerprintTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test("tokens.fingerprint: a raw token, uppercase hex, a short one", arguments: CorruptibleStore.engines)
    func tokens(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        let token = sampleToken()
        try store.transaction { try $0.saveToken(token) }
        // A list leaves a corrupt row out and names it; `read` throws what it named.
        let read = {
            if let first = try store.transaction({ try $0.recentTokens(app: "app", limit: 10) }).corrupt.first {
                throw first
            }
        }
        #expect(try store.transaction { try $0.recentTokens(app: "app", limit: 10) }.records == [token])

        let raw = token.token.wireValue
        try corruptible.run("UPDATE tokens SET fingerprint = '\(raw)'")
        let error = expectCorrupt("tokens", "fingerprint", read)
        // A token written where its fingerprint belongs stays out of the error, key included.
        // (Not even its first digits: a quoted value is cut at 40 characters, which hides a whole token only.)
        #expect(error.map { !"\($0)".contains(raw.prefix(16)) } == true, "\(String(describing: error))")
        #expect(error.map { "\($0)".contains("16 lowercase hex digits") } == true)
        expectCorrupt("tokens", "fingerprint") {
            _ = try store.transaction { try $0.tokens(app: "app", deviceIds: ["d1"]) }
        }

        try corruptible.run("UPDATE tokens SET fingerprint = '\(token.fingerprint.value.uppercased())'")
        expectCorrupt("tokens", "fingerprint", read)
        try corruptible.run("UPDATE tokens SET fingerprint = '\(token.fingerprint.value.prefix(15))'")
        expectCorrupt("tokens", "fingerprint", read)
    }

    @Test(
        "outbox.token_fingerprint: a claim sets the row aside as a dead letter naming the column, not the text",
        arguments: CorruptibleStore.engines)
    func outbox(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        try store.transaction {
            try $0.enqueue(
                app: "app", activityId: "a1", fingerprints: [fingerprint("f1")], version: 1, availableAt: now, now: now)
        }
        try corruptible.run("UPDATE outbox SET token_fingerprint = 'F1000000000000000'")
        try store.transaction {
            try $0.enqueue(
                app: "app", activityId: "a1", fingerprints: [fingerprint("f2")], version: 1, availableAt: now, now: now)
        }
        let claimed = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w", until: now + 30, now: now)
        }
        #expect(claimed.map(\.destination) == [.token(fingerprint: fingerprint("f2"))])
        #expect(try store.transaction { try $0.outboxStats() }.deadLetters == 1)
        let reason = try corruptible.query("SELECT last_error FROM dead_letters")
        #expect(reason.contains("token_fingerprint") && reason.contains("16 lowercase hex digits"), "\(reason)")
        #expect(!reason.contains("F1000000000000000"), "\(reason)")
    }

    @Test(
        "timeline.destination: a fingerprint, channel:<id>, range:<hex digit> or -; anything else is corrupt",
        arguments: CorruptibleStore.engines)
    func timeline(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        let destinations: [TimelineDestination] = [
            .token(fingerprint("f1")), .channel(id: "c1"), .range(10), .activity,
        ]
        try store.transaction {
            try $0.appendTimeline(
                destinations.map {
                    TimelineEntry(
                        app: "app", activityId: "a1", at: now, destination: $0, provider: .server, event: "update",
                        version: 1, status: 0, reason: "ok", remedy: .none, latencyMs: 0, priority: 5, attempt: 0)
                })
        }
        let read = { try store.transaction { try $0.timeline(app: "app", activityId: "a1", limit: 10) } }
        #expect(try read().map(\.destination) == destinations)
        #expect(
            try corruptible.query("SELECT destination FROM timeline ORDER BY id").split(separator: "\n")
                == ["f100000000000000", "channel:c1", "range:a", "-"])

        for bad in ["range:z", "range:", "F100000000000000", "f1", ""] {
            try corruptible.run("UPDATE timeline SET destination = '\(bad)' WHERE destination = 'f100000000000000'")
            expectCorrupt("timeline", "destination") { _ = try read() }
            try corruptible.run("UPDATE timeline SET destination = 'f100000000000000' WHERE destination = '\(bad)'")
        }
        #expect(try read().count == 4)
    }

    @Test(
        "fanout_jobs.cursor_fingerprint: empty at a pass's start, a fingerprint after, anything else corrupt",
        arguments: CorruptibleStore.engines)
    func fanoutCursor(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        try store.transaction {
            try $0.requestFanout(app: "app", activityId: "a1", version: 2, availableAt: now, now: now)
        }
        let read = { try store.transaction { try $0.fanoutJobs(app: "app", activityId: "a1") } }
        #expect(try read().allSatisfy { $0.cursor == nil })
        try corruptible.run("UPDATE fanout_jobs SET cursor_fingerprint = '3abc000000000000' WHERE range_index = 3")
        #expect(try read().first { $0.range == 3 }?.cursor == fingerprint("3abc"))
        try corruptible.run("UPDATE fanout_jobs SET cursor_fingerprint = '3ABC' WHERE range_index = 3")
        expectCorrupt("fanout_jobs", "cursor_fingerprint") { _ = try read() }
    }
}
