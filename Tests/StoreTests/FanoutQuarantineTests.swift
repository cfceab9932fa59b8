import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Synchronization
import Testing

/// A claimed range row that cannot be read used to fail the whole claim, every round: no range of any
/// activity of the app went out. As the outbox's claim does, it now goes to the dead letters.
@Suite("A claim sets an unreadable fan-out range aside as a dead letter; the app's other fan-outs go on")
struct FanoutQuarantineTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test(
        "a token in a cursor and a range of 99: two dead letters naming activity, range and column; the rest is claimed",
        arguments: CorruptibleStore.engines)
    func quarantine(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        try store.transaction {
            try $0.requestFanout(app: "app", activityId: "a1", version: 2, availableAt: now, now: now)
            try $0.requestFanout(app: "app", activityId: "a2", version: 3, availableAt: now, now: now)
        }
        let raw = sampleToken().token.wireValue
        try corruptible.run(
            "UPDATE fanout_jobs SET cursor_fingerprint = '\(raw)' WHERE activity_id = 'a1' AND range_index = 3")
        try corruptible.run("UPDATE fanout_jobs SET range_index = 99 WHERE activity_id = 'a1' AND range_index = 5")

        let claimed = try store.transaction {
            try $0.claimFanout(app: "app", limit: 64, owner: "w1", until: now + 60, now: now)
        }
        #expect(claimed.filter { $0.activityId == "a2" }.map(\.range) == Array(0..<16), "the other activity goes out")
        #expect(claimed.filter { $0.activityId == "a1" }.map(\.range) == (0..<16).filter { $0 != 3 && $0 != 5 })
        #expect(try store.transaction { try $0.outboxStats() }.deadLetters == 2)
        // Each takes the next negative id, in the order the engine returned the claimed rows.
        let letters = try corruptible.query(
            "SELECT app || ' ' || activity_id || ' ' || token_fingerprint || ' ' || requested_version FROM dead_letters ORDER BY token_fingerprint"
        )
        #expect(letters.split(separator: "\n") == ["app a1 range:3 2", "app a1 range:99 2"], "\(letters)")
        #expect(
            try corruptible.query("SELECT id FROM dead_letters ORDER BY id").split(separator: "\n") == ["-2", "-1"])
        let cursorError = try corruptible.query(
            "SELECT last_error FROM dead_letters WHERE token_fingerprint = 'range:3'")
        #expect(cursorError.contains("cursor_fingerprint") && cursorError.contains("16 lowercase hex digits"))
        #expect(!cursorError.contains(raw.prefix(16)), "a token never reaches a dead letter: \(cursorError)")
        let rangeError = try corruptible.query(
            "SELECT last_error FROM dead_letters WHERE token_fingerprint = 'range:99'")
        #expect(rangeError.contains("range_index") && rangeError.contains("is 99"), "\(rangeError)")

        // The rows are gone, so reads of the activity work again, and a later claim finds nothing corrupt.
        #expect(try store.transaction { try $0.fanoutJobs(app: "app", activityId: "a1") }.count == 14)
        let later = try store.transaction {
            try $0.claimFanout(app: "app", limit: 64, owner: "w2", until: now + 200, now: now + 100)
        }
        #expect(later.count == 30)
        #expect(try store.transaction { try $0.outboxStats() }.deadLetters == 2)
    }
}

/// Two replicas setting range rows aside at once both took `MIN(id) - 1` as their dead letter's id:
/// the second's insert waited on the first's uncommitted row, then failed on the key, and its whole
/// claim was rolled back.
@Suite("PostgreSQL: two replicas set range rows aside at once", .enabled(if: PostgresTestServer.enabled))
struct FanoutQuarantineReplicaTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test("each dead letter gets its own negative id while the other replica's claim is still open")
    func concurrentQuarantines() throws {
        let (url, _) = try PostgresTestServer.freshSchema()
        let first = try PostgresStore(url: url, poolSize: 1)
        let second = try PostgresStore(url: url, poolSize: 1)
        try first.transaction {
            try $0.requestFanout(app: "app", activityId: "a1", version: 2, availableAt: now, now: now)
            try $0.requestFanout(app: "app", activityId: "a2", version: 2, availableAt: now + 1, now: now)
        }
        // The corrupt rows are the first two due: a1's range 0, then a2's range 0.
        try PostgresTestServer.psql(
            url,
            """
            UPDATE fanout_jobs SET range_index = 99 WHERE range_index = 0;
            UPDATE fanout_jobs SET available_at = available_at - 100 WHERE range_index = 99
            """)
        let firstHasSetAside = DispatchSemaphore(value: 0)
        let firstIsDone = DispatchSemaphore(value: 0)
        let firstOutcome = Mutex<Result<Int, any Error>?>(nil)
        let firstReplica = Thread { [now] in
            let result = Result {
                try first.transaction { transaction in
                    let claimed = try transaction.claimFanout(
                        app: "app", limit: 1, owner: "r1", until: now + 60, now: now)
                    firstHasSetAside.signal()
                    // Hold the transaction open while the second replica sets its row aside.
                    Thread.sleep(forTimeInterval: 1)
                    return claimed.count
                }
            }
            firstOutcome.withLock { $0 = result }
            firstIsDone.signal()
        }
        firstReplica.start()
        firstHasSetAside.wait()
        let secondClaim = Result {
            try second.transaction {
                try $0.claimFanout(app: "app", limit: 1, owner: "r2", until: now + 60, now: now + 2)
            }
        }
        firstIsDone.wait()
        #expect(throws: Never.self) { try secondClaim.get() }
        #expect(throws: Never.self) { try firstOutcome.withLock { $0 }!.get() }
        let ids = try PostgresTestServer.psql(url, "SELECT id || ' ' || activity_id FROM dead_letters ORDER BY id")
        #expect(ids.split(separator: "\n") == ["-2 a2", "-1 a1"], "\(ids)")
    }
}
