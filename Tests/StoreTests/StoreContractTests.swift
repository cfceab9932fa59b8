import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

@Suite("Storage contract, run against every engine")
struct StoreContractTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test(
        "tokens: save (device facts too), read back, look up by user and activity, invalidate once",
        arguments: StoreEngine.allCases)
    func tokens(engine: StoreEngine) throws {
        let store = try engine.make()
        let push = sampleToken(kind: .pushToStart, attributesType: "DeliveryAttributes", activity: nil)
        var update = sampleToken(kind: .activity, user: nil, activity: "a1")
        update.device = .object(["osVersion": .string("18.2"), "areActivitiesEnabled": .bool(false)])
        let fcm = sampleToken(kind: .fcm, token: "fcm:" + APNsHarness.randomToken(), activity: nil)
        try store.transaction { try [push, update, fcm].forEach($0.saveToken) }
        try store.transaction { (tx) throws in
            #expect(try tx.token(app: "app", fingerprint: push.fingerprint) == push)
            #expect(
                try tx.tokens(app: "app", userId: "u1", kinds: [.pushToStart, .fcm]).map(\.fingerprint).sorted()
                    == [push.fingerprint, fcm.fingerprint].sorted())
            #expect(try tx.tokens(app: "app", activityId: "a1") == [update])
            #expect(try tx.tokens(app: "other", activityId: "a1") == [])
            #expect(try tx.tokens(app: "app", fingerprints: [update.fingerprint, fingerprint("0ff")]) == [update])
        }
        try store.transaction {
            try $0.invalidateTokens(
                app: "app", fingerprints: [update.fingerprint], reason: .provider("unregistered"), at: now)
        }
        try store.transaction {
            try $0.invalidateTokens(
                app: "app", fingerprints: [update.fingerprint], reason: .provider("later"), at: now + 5)
        }
        let invalid = try store.transaction { try $0.token(app: "app", fingerprint: update.fingerprint) }
        #expect(
            invalid?.invalidReason == .provider("unregistered") && invalid?.invalidatedAt == now
                && invalid?.isValid == false)
    }

    @Test(
        "tokens in bulk: 300 saved in one call, read back by device and fingerprint, invalidated together",
        arguments: StoreEngine.allCases)
    func tokensInBulk(engine: StoreEngine) throws {
        let store = try engine.make()
        let tokens = (0..<300).map { sampleToken(device: "d\($0 % 7)", at: now + Double($0)) }
        try store.transaction { try $0.saveTokens(tokens) }
        try store.transaction { (tx) throws in
            #expect(try tx.tokens(app: "app", fingerprints: tokens.map(\.fingerprint)).count == 300)
            let fromTwo = try tx.tokens(app: "app", deviceIds: ["d1", "d3", "d1", "nobody"])
            #expect(fromTwo == tokens.filter { ["d1", "d3"].contains($0.deviceId) })
            #expect(try tx.tokens(app: "other", deviceIds: ["d1"]).isEmpty)
        }
        var changed = tokens[5]
        changed.lastSeenAt = now + 1000
        try store.transaction { (tx) throws in
            try tx.saveTokens([changed])
            try tx.invalidateTokens(
                app: "app", fingerprints: tokens[..<290].map(\.fingerprint), reason: .provider("gone"), at: now)
        }
        let after = try store.transaction { try $0.tokens(app: "app", fingerprints: tokens.map(\.fingerprint)) }
        #expect(after.count(where: { !$0.isValid && $0.invalidReason == .provider("gone") }) == 290)
        #expect(after.count(where: \.isValid) == 10)
        #expect(after.first { $0.fingerprint == changed.fingerprint }?.lastSeenAt == now + 1000)
    }

    @Test("activities: unique id and idempotency key per app, update, read back", arguments: StoreEngine.allCases)
    func activities(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction { try $0.insertActivity(sampleActivity(key: "k1")) }
        #expect(throws: StoreError(.conflict, "")) {
            try store.transaction { try $0.insertActivity(sampleActivity(key: "k2")) }
        }
        #expect(throws: StoreError(.conflict, "")) {
            try store.transaction { try $0.insertActivity(sampleActivity(id: "a2", key: "k1")) }
        }
        try store.transaction { try $0.insertActivity(sampleActivity("other", key: "k1")) }
        var activity = try #require(try store.transaction { try $0.activity(app: "app", idempotencyKey: "k1") })
        activity.version = 2
        activity.contentState = .object(["status": .string("On the way"), "eta": .number(817_693_520)])
        activity.priority10Times = [1_796_000_000, 1_796_000_100]
        activity.alert = .object(["title": .string("t")])
        activity.endAt = now + 100
        try store.transaction { try $0.updateActivity(activity) }
        #expect(try store.transaction { try $0.activity(app: "app", id: "a1") } == activity)
        #expect(try store.transaction { try $0.activityForUpdate(app: "app", id: "a1") } == activity)
        #expect(try store.transaction { try $0.activityForUpdate(app: "app", id: "missing") } == nil)
    }

    @Test("a throw inside a transaction leaves nothing written", arguments: StoreEngine.allCases)
    func rollback(engine: StoreEngine) throws {
        let store = try engine.make()
        #expect(throws: ThrownOnPurpose.self) {
            try store.transaction { (tx) throws in
                try tx.insertActivity(sampleActivity())
                try tx.saveToken(sampleToken())
                try tx.enqueue(
                    app: "app", activityId: "a1", fingerprints: [fingerprint("f1")], version: 1, availableAt: now,
                    now: now)
                throw ThrownOnPurpose()
            }
        }
        try store.transaction { (tx) throws in
            #expect(try tx.activity(app: "app", id: "a1") == nil)
            #expect(try tx.tokens(app: "app", activityId: "a1").isEmpty)
            #expect(try tx.outboxStats().depth == 0)
        }
    }

    @Test(
        "outbox: requests for one token coalesce; a claim is exclusive until its lease ends",
        arguments: StoreEngine.allCases)
    func outboxClaims(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction { (tx) throws in
            try tx.enqueue(
                app: "app", activityId: "a1", fingerprints: [fingerprint("f1"), fingerprint("f2")], version: 1,
                availableAt: now, now: now)
            try tx.enqueue(
                app: "app", activityId: "a1", fingerprints: [fingerprint("f1")], version: 3, availableAt: now, now: now)
            try tx.enqueue(
                app: "app", activityId: "a1", fingerprints: [fingerprint("f1")], version: 2, availableAt: now, now: now)
        }
        #expect(try store.transaction { try $0.outboxStats().depth } == 2)
        #expect(try store.transaction { try $0.appsWithDueWork(now: now) } == ["app"])
        let first = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w1", until: now + 30, now: now)
        }
        #expect(first.count == 2)
        #expect(first.first { $0.destination.tokenFingerprint == fingerprint("f1") }?.requestedVersion == 3)
        #expect(first.allSatisfy { $0.attempts == 1 && $0.claimedBy == "w1" })
        #expect(
            try store.transaction { try $0.claim(app: "app", limit: 10, owner: "w2", until: now + 60, now: now + 1) }
                .isEmpty)
        #expect(try store.transaction { try $0.appsWithDueWork(now: now + 1) }.isEmpty)
        let taken = try store.transaction {
            try $0.claim(app: "app", limit: 1, owner: "w2", until: now + 90, now: now + 31)
        }
        #expect(taken.count == 1 && taken[0].attempts == 2 && taken[0].claimedBy == "w2")
        #expect(first.allSatisfy { !$0.inDoubt })
        #expect(taken[0].inDoubt, "w1's lease ran out with no outcome: the send may have happened")
        // w1 answers late, after w2 took the row over: the row stays w2's.
        try store.transaction { (tx) throws in
            try tx.completeOutbox(ids: [taken[0].id], sentVersion: 99, owner: "w1", now: now + 32)
            try tx.rescheduleOutbox(id: taken[0].id, owner: "w1", availableAt: now, error: "late")
        }
        #expect(try store.transaction { try $0.outboxStats().depth } == 2)
        let meanwhile = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w4", until: now + 40, now: now + 32)
        }
        #expect(meanwhile.map(\.id) == first.map(\.id).filter { $0 != taken[0].id }, "w2 still holds its row")
        try store.transaction {
            try $0.rescheduleOutbox(id: taken[0].id, owner: "w2", availableAt: now + 31, error: "503")
        }
        let retried = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w3", until: now + 200, now: now + 100)
        }
        #expect(retried.count == 2)
        #expect(retried.first { $0.id == taken[0].id }?.inDoubt == false, "an outcome was written: a plain retry")
        #expect(retried.first { $0.id != taken[0].id }?.inDoubt == true)
    }

    @Test(
        "outbox: a large fan-out with repeated tokens queues each token once, every one claimable",
        arguments: StoreEngine.allCases)
    func largeEnqueue(engine: StoreEngine) throws {
        let store = try engine.make()
        // 301 tokens (several statement batches), given twice over: still 301 rows.
        let fingerprints = (0..<301).map { Fingerprint(of: "f\($0)") }
        try store.transaction {
            try $0.enqueue(
                app: "app", activityId: "a1", fingerprints: fingerprints + fingerprints.reversed(), version: 1,
                availableAt: now, now: now)
        }
        #expect(try store.transaction { try $0.outboxStats().depth } == 301)
        let claimed = try store.transaction {
            try $0.claim(app: "app", limit: 1000, owner: "w", until: now + 30, now: now)
        }
        #expect(Set(claimed.compactMap(\.destination.tokenFingerprint)) == Set(fingerprints))
    }

    @Test(
        "outbox: completion removes the row unless a newer version was asked for meanwhile",
        arguments: StoreEngine.allCases)
    func outboxCompletion(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction {
            try $0.enqueue(
                app: "app", activityId: "a1", fingerprints: [fingerprint("f1"), fingerprint("f2")], version: 1,
                availableAt: now, now: now)
        }
        let claimed = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w", until: now + 30, now: now)
        }
        let f1 = try #require(claimed.first { $0.destination.tokenFingerprint == fingerprint("f1") })
        let f2 = try #require(claimed.first { $0.destination.tokenFingerprint == fingerprint("f2") })
        try store.transaction {
            try $0.enqueue(
                app: "app", activityId: "a1", fingerprints: [fingerprint("f2")], version: 2, availableAt: now, now: now)
        }
        try store.transaction { (tx) throws in
            try tx.completeOutbox(ids: [f1.id, f2.id], sentVersion: 1, owner: "w", now: now + 1)
        }
        #expect(try store.transaction { try $0.outboxStats().depth } == 1)
        let again = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w", until: now + 30, now: now + 1)
        }
        #expect(again.map(\.destination.tokenFingerprint) == [fingerprint("f2")] && again[0].requestedVersion == 2)
        try store.transaction {
            try $0.rescheduleOutbox(id: again[0].id, owner: "w", availableAt: now + 100, error: "503")
        }
        #expect(
            try store.transaction { try $0.claim(app: "app", limit: 10, owner: "w", until: now + 130, now: now + 50) }
                .isEmpty)
        let later = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w", until: now + 130, now: now + 100)
        }
        #expect(later.count == 1 && later[0].lastError == "503")
        try store.transaction { (tx) throws in
            try tx.deadLetterOutbox(id: later[0].id, owner: "someone else", error: "late")
            try tx.deleteOutbox(id: later[0].id, owner: "someone else")
        }
        let untouched = try store.transaction { try $0.outboxStats() }
        #expect(untouched.depth == 1 && untouched.deadLetters == 0, "only the worker holding a row may drop it")
        try store.transaction { try $0.deadLetterOutbox(id: later[0].id, owner: "w", error: "gave up") }
        let stats = try store.transaction { try $0.outboxStats() }
        #expect(stats.depth == 0 && stats.deadLetters == 1)
        #expect(try store.transaction { try $0.pendingOutbox(app: "app", activityId: "a1") } == 0)
    }

    @Test(
        "the scheduler finds scheduled starts, automatic ends, stale and dismissal times",
        arguments: StoreEngine.allCases)
    func attention(engine: StoreEngine) throws {
        let store = try engine.make()
        var pending = sampleActivity(id: "pending")
        pending.state = .pending
        pending.startAt = now + 60
        var ending = sampleActivity(id: "ending")
        ending.endAt = now + 30
        var staling = sampleActivity(id: "staling")
        staling.staleDate = Int64(now.timeIntervalSince1970) + 10
        var ended = sampleActivity(id: "ended")
        ended.state = .ended
        ended.dismissAt = now + 20
        let quiet = sampleActivity(id: "quiet")
        try store.transaction { tx in try [pending, ending, staling, ended, quiet].forEach(tx.insertActivity) }
        #expect(try store.transaction { try $0.activitiesNeedingAttention(now: now) }.isEmpty)
        // Stale dates are whole seconds; the scheduler's clock is not.
        #expect(try store.transaction { try $0.activitiesNeedingAttention(now: now + 9.5) }.isEmpty)
        #expect(try store.transaction { try $0.activitiesNeedingAttention(now: now + 10.5) }.map(\.id) == ["staling"])
        #expect(
            try store.transaction { try $0.activitiesNeedingAttention(now: now + 25) }.map(\.id).sorted() == [
                "ended", "staling",
            ])
        #expect(
            try store.transaction { try $0.activitiesNeedingAttention(now: now + 61) }.map(\.id).sorted() == [
                "ended", "ending", "pending", "staling",
            ])
    }

    @Test("the timeline keeps entries in order and returns the newest", arguments: StoreEngine.allCases)
    func timeline(engine: StoreEngine) throws {
        let store = try engine.make()
        let entries = (0..<5).map { index in
            TimelineEntry(
                app: "app", activityId: "a1", at: now + Double(index), destination: .token(fingerprint("f\(index)")),
                provider: .apns,
                event: "update",
                version: Int64(index), status: 200, reason: "ok", remedy: .none, latencyMs: 1.5, priority: 5,
                attempt: 1,
                note: index == 4 ? "last" : nil)
        }
        try store.transaction { try $0.appendTimeline(entries) }
        #expect(
            try store.transaction { try $0.timeline(app: "app", activityId: "a1", limit: 3) }
                == Array(entries.suffix(3)))
        // One append of many entries (several statement batches) keeps their order.
        let many = (0..<300).map { index in
            TimelineEntry(
                app: "app", activityId: "a2", at: now, destination: .token(fingerprint("f\(index)")), provider: .apns,
                event: "update",
                version: 1, status: 200, reason: "ok", remedy: .none, latencyMs: 1, priority: 5, attempt: 1)
        }
        try store.transaction { try $0.appendTimeline(many) }
        #expect(try store.transaction { try $0.timeline(app: "app", activityId: "a2", limit: 1000) } == many)
        #expect(try store.transaction { try $0.timeline(app: "app", activityId: "other", limit: 3) }.isEmpty)
    }

    @Test(
        "tokens invalidated before the cutoff are deleted, oldest first and a bounded number at a time; valid ones stay",
        arguments: StoreEngine.allCases)
    func tokenPruning(engine: StoreEngine) throws {
        let store = try engine.make()
        let tokens = (0..<4).map { _ in sampleToken(device: "d\(Int.random(in: 0...999_999))") }
        try store.transaction { tx in try tokens.forEach(tx.saveToken) }
        // Invalidated newest first, so the order of deletion cannot come from the order of insertion.
        for (index, token) in tokens.dropFirst().reversed().enumerated() {
            try store.transaction {
                try $0.invalidateTokens(
                    app: "app", fingerprints: [token.fingerprint], reason: .provider("unregistered"),
                    at: now.addingTimeInterval(TimeInterval(index * 60)))
            }
        }
        #expect(try store.transaction { try $0.pruneTokens(invalidatedBefore: now, limit: 100) } == 0)
        #expect(try store.transaction { try $0.pruneTokens(invalidatedBefore: now + 100, limit: 1) } == 1)
        #expect(try store.transaction { try $0.token(app: "app", fingerprint: tokens[3].fingerprint) } == nil)
        #expect(try store.transaction { try $0.pruneTokens(invalidatedBefore: now + 1000, limit: 100) } == 2)
        #expect(try store.transaction { try $0.pruneTokens(invalidatedBefore: now + 1000, limit: 100) } == 0)
        #expect(try store.transaction { try $0.token(app: "app", fingerprint: tokens[0].fingerprint) } == tokens[0])
    }

    @Test("old timeline rows are pruned oldest first, a bounded number at a time", arguments: StoreEngine.allCases)
    func timelinePruning(engine: StoreEngine) throws {
        let store = try engine.make()
        let entries = (0..<6).map { (index: Int) -> TimelineEntry in
            let activity = index.isMultiple(of: 2) ? "a1" : "a2"
            let at = now.addingTimeInterval(TimeInterval(index * 60))
            return TimelineEntry(
                app: "app", activityId: activity, at: at, destination: .token(fingerprint("f\(index)")),
                provider: .apns, event: "update",
                version: Int64(index), status: 200, reason: "ok", remedy: .none, latencyMs: 1, priority: 5,
                attempt: 1)
        }
        try store.transaction { try $0.appendTimeline(entries) }
        #expect(try store.transaction { try $0.pruneTimeline(before: now, limit: 100) } == 0)
        #expect(try store.transaction { try $0.pruneTimeline(before: now + 200, limit: 2) } == 2)
        #expect(try store.transaction { try $0.pruneTimeline(before: now + 200, limit: 100) } == 2)
        #expect(try store.transaction { try $0.pruneTimeline(before: now + 200, limit: 100) } == 0)
        let left = try ["a1", "a2"].flatMap { id in
            try store.transaction { try $0.timeline(app: "app", activityId: id, limit: 10) }
        }
        #expect(left.map(\.destination.stored).sorted() == [fingerprint("f4").value, fingerprint("f5").value])
    }

    @Test("SQLite keeps everything across a reopen, and refuses a schema newer than it knows")
    func sqliteReopen() throws {
        let path = makeTemporaryDirectory("reopen") + "/droptrack.sqlite"
        do {
            let store = try SQLiteStore(path: path)
            try store.transaction { (tx) throws in
                try tx.insertActivity(sampleActivity())
                try tx.enqueue(
                    app: "app", activityId: "a1", fingerprints: [fingerprint("f1")], version: 1, availableAt: now,
                    now: now)
            }
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try reopened.transaction { try $0.activity(app: "app", id: "a1") } != nil)
        #expect(try reopened.transaction { try $0.outboxStats().depth } == 1)
        let bad = makeTemporaryDirectory("future") + "/db.sqlite"
        _ = try SQLiteStore(path: bad)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [bad, "PRAGMA user_version = 99"]
        try process.run()
        process.waitUntilExit()
        #expect(throws: StoreError(.schemaTooNew, "")) { _ = try SQLiteStore(path: bad) }
    }

    @Test("a version-2 SQLite store gets the later columns and indexes when opened, and keeps its rows")
    func sqliteUpgrade() throws {
        let path = makeTemporaryDirectory("upgrade") + "/droptrack.sqlite"
        var token = sampleToken()
        do {
            let store = try SQLiteStore(path: path)
            try store.transaction { try $0.insertActivity(sampleActivity()) }
            try store.transaction { try $0.saveToken(token) }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [
            path,
            "ALTER TABLE activities DROP COLUMN channel_policy; ALTER TABLE tokens DROP COLUMN device; PRAGMA user_version = 2;",
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let upgraded = try SQLiteStore(path: path)
        var activity = try #require(try upgraded.transaction { try $0.activity(app: "app", id: "a1") })
        activity.channelId = "AAAAAAAAAAAAAAAAAAAAAA=="
        activity.channelPolicy = 0
        try upgraded.transaction { try $0.updateActivity(activity) }
        #expect(try upgraded.transaction { try $0.activity(app: "app", id: "a1") }?.channelPolicy == 0)
        #expect(try upgraded.transaction { try $0.token(app: "app", fingerprint: token.fingerprint) } == token)
        token.device = .object(["osVersion": .string("17.4")])
        try upgraded.transaction { try $0.saveToken(token) }
        #expect(try upgraded.transaction { try $0.token(app: "app", fingerprint: token.fingerprint) } == token)
        let indexes = Process()
        let output = Pipe()
        indexes.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        indexes.arguments = [path, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox'"]
        indexes.standardOutput = output
        try indexes.run()
        indexes.waitUntilExit()
        let names = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(names.contains("outbox_claim") && !names.contains("outbox_due"), "\(names)")
    }
}
