import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// `validUpdateTokenCount` is what an event's `destinations` and the choice between outbox rows and
/// range jobs read. SQL stores keep it in a table written by triggers; each step here changes which
/// tokens count in one of the ways a store can, and the kept number is compared with the tokens read.
@Suite("The kept count of an activity's valid update tokens, run against every engine")
struct TokenCountTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)
    let activities = [("app", "a1"), ("app", "a2"), ("app", "a3"), ("other", "a1")]

    /// The kept count and the count of the tokens read, for every activity the test uses.
    private func counts(_ store: any DeliveryStore) throws -> [String: [Int]] {
        try store.transaction { tx in
            var result: [String: [Int]] = [:]
            for (app, activity) in activities {
                let read = try tx.tokens(app: app, activityId: activity).count(where: \.isValid)
                result["\(app)/\(activity)"] = [try tx.validUpdateTokenCount(app: app, activityId: activity), read]
            }
            return result
        }
    }

    private func expectKept(
        _ store: any DeliveryStore, _ step: String, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        for (activity, pair) in try counts(store) {
            #expect(
                pair[0] == pair[1], "\(step): \(activity) kept \(pair[0]), has \(pair[1])",
                sourceLocation: sourceLocation)
        }
    }

    private func edited(_ token: TokenRecord, _ change: (inout TokenRecord) -> Void) -> TokenRecord {
        var token = token
        change(&token)
        return token
    }

    @Test(
        "every way a token starts or stops counting keeps the count equal to the tokens",
        arguments: StoreEngine.allCases)
    func everyChange(engine: StoreEngine) throws {
        let store = try engine.make()
        var a1 = (0..<30).map { sampleToken(device: "d\($0)") }
        let a2 = (0..<10).map { sampleToken(device: "e\($0)", activity: "a2") }
        var born = sampleToken(device: "born-invalid")
        born.invalidatedAt = now
        born.invalidReason = .superseded
        let others: [TokenRecord] = [
            sampleToken(kind: .fcm, device: "f", activity: nil),
            sampleToken(kind: .pushToStart, device: "p", activity: nil),
            sampleToken(kind: .channelSubscription, device: "s"), sampleToken("other", device: "o"), born,
        ]
        try store.transaction { try $0.saveTokens(a1 + a2 + others) }
        try expectKept(store, "inserted")
        #expect(try counts(store)["app/a1"] == [30, 30] && counts(store)["other/a1"] == [1, 1])

        // Registered again unchanged (an upsert that updates every column).
        a1 = a1.map { edited($0) { $0.lastSeenAt = now + 1 } }
        try store.transaction { try $0.saveTokens(a1 + a2) }
        try expectKept(store, "saved again")

        // Moved to another activity, turned into another kind, or left without an activity by an upsert.
        let changed =
            a1[0..<4].map { edited($0) { $0.activityId = "a3" } } + [
                edited(a1[4]) { $0.kind = .channelSubscription },
                edited(a1[5]) {
                    $0.kind = .pushToStart
                    $0.activityId = nil
                },
                edited(others[2]) { $0.kind = .activity },
            ]
        try store.transaction { try $0.saveTokens(changed) }
        try expectKept(store, "moved")
        #expect(try counts(store)["app/a1"]?[0] == 25 && counts(store)["app/a3"]?[0] == 4)

        // Invalidated in place, twice for some (the second time changes nothing), and one unknown fingerprint.
        let gone = a1[6..<12].map(\.fingerprint) + [born.fingerprint, Fingerprint(rawValue: "0000000000000000")]
        try store.transaction {
            try $0.invalidateTokens(app: "app", fingerprints: gone, reason: .deleted, at: now)
            try $0.invalidateTokens(app: "app", fingerprints: Array(gone[0..<3]), reason: .superseded, at: now)
        }
        try expectKept(store, "invalidated")
        #expect(try counts(store)["app/a1"]?[0] == 19)

        // Brought back by a registration's upsert, and an invalid one saved as invalid again.
        var revived = a1[6]
        revived.invalidatedAt = nil
        revived.invalidReason = nil
        var stillInvalid = a1[7]
        stillInvalid.invalidatedAt = now
        stillInvalid.invalidReason = .deleted
        try store.transaction { try $0.saveTokens([revived, stillInvalid, born]) }
        try expectKept(store, "revived")

        // A transaction that fails leaves the count as it was.
        #expect(throws: ThrownOnPurpose.self) {
            try store.transaction { tx in
                try tx.invalidateTokens(app: "app", fingerprints: a2.map(\.fingerprint), reason: .deleted, at: now)
                throw ThrownOnPurpose()
            }
        }
        try expectKept(store, "rolled back")
        #expect(try counts(store)["app/a2"] == [10, 10])

        // Invalid rows pruned: the count stays.
        #expect(try store.transaction { try $0.pruneTokens(invalidatedBefore: now + 1, limit: 100) } > 0)
        try expectKept(store, "pruned")
        #expect(try counts(store)["app/a1"] == [20, 20])
    }

    /// A SQL store and a way to run SQL on it from outside, as an operator would.
    private func sqlStore(_ engine: StoreEngine) throws -> (
        open: () throws -> any DeliveryStore, sql: (String) throws -> Void
    ) {
        switch engine {
        case .postgres:
            let (url, _) = try PostgresTestServer.freshSchema()
            return ({ try PostgresStore(url: url, poolSize: 1) }, { try PostgresTestServer.psql(url, $0) })
        default:
            let path = makeTemporaryDirectory("counts") + "/droptrack.sqlite"
            return (
                { try SQLiteStore(path: path) },
                { sql in
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
                    process.arguments = [path, sql]
                    try process.run()
                    process.waitUntilExit()
                    #expect(process.terminationStatus == 0, "\(sql)")
                }
            )
        }
    }

    @Test(
        "a store at schema 11 gets its counts filled from the tokens it has; a token deleted or changed by hand counts too",
        arguments: StoreEngine.allCases.filter { $0 != .memory })
    func migrationAndChangesByHand(engine: StoreEngine) throws {
        let (open, sql) = try sqlStore(engine)
        let tokens = (0..<12).map { sampleToken(device: "d\($0)") } + [sampleToken(device: "x", activity: "a2")]
        try open().transaction { try $0.saveTokens(tokens) }
        // Back to schema 11: no table, no triggers, and tokens written meanwhile.
        if engine == .postgres {
            try sql(
                """
                DROP TRIGGER tokens_count ON tokens; DROP FUNCTION droptrack_count_update_tokens();
                DROP TABLE activity_token_counts; UPDATE schema_version SET version = 11;
                UPDATE tokens SET invalidated_at = 1 WHERE device_id IN ('d0', 'd1')
                """)
        } else {
            try sql(
                """
                DROP TRIGGER tokens_count_insert; DROP TRIGGER tokens_count_delete; DROP TRIGGER tokens_count_update_from;
                DROP TRIGGER tokens_count_update_to; DROP TABLE activity_token_counts; PRAGMA user_version = 11;
                UPDATE tokens SET invalidated_at = 1 WHERE device_id IN ('d0', 'd1');
                """)
        }
        let store = try open()
        try expectKept(store, "migrated")
        #expect(try counts(store)["app/a1"] == [10, 10] && counts(store)["app/a2"] == [1, 1])
        try sql("DELETE FROM tokens WHERE device_id IN ('d2', 'd0')")
        try sql("UPDATE tokens SET activity_id = 'a2' WHERE device_id = 'd3'")
        try expectKept(store, "changed by hand")
        #expect(try counts(store)["app/a1"] == [8, 8] && counts(store)["app/a2"] == [2, 2])
        // Opening it again runs no migration and keeps the count.
        try expectKept(try open(), "opened again")
    }
}
