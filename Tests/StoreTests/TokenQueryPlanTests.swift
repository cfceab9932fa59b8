import DropTrackContract
import DropTrackCore
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// SQLite plans without statistics, so a query's index is chosen by its shape: these read the plans
/// of the token reads that run per event and per batch, which must not grow with the app's tokens.
@Suite("SQLite's plans for the token reads an event and a fan-out make")
struct TokenQueryPlanTests {
    private func plan(_ sql: String) throws -> String {
        let path = makeTemporaryDirectory("plan") + "/droptrack.sqlite"
        _ = try SQLiteStore(path: path)
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, "EXPLAIN QUERY PLAN " + sql]
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    @Test("a range batch is read from the covering index alone, in its order, never the tokens' table rows")
    func coveringFanout() throws {
        // The three statement shapes: the first range has no lower bound, the last no upper one.
        for bounds in [
            "AND fingerprint < '1'", "AND fingerprint >= '7' AND fingerprint < '8'", "AND fingerprint >= 'f'",
        ] {
            let plan = try plan(
                """
                SELECT fingerprint, token, environment FROM tokens
                WHERE app = 'app' AND activity_id = 'a1' AND kind = 'activity' AND invalidated_at IS NULL
                AND fingerprint > '' \(bounds) ORDER BY fingerprint LIMIT 500
                """)
            #expect(plan.contains("USING COVERING INDEX tokens_activity_fanout"), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "sorted by the index, not afterwards: \(plan)")
        }
    }

    @Test("a user's or an activity's tokens are found by their own index, not by reading the app's in order")
    func ownIndex() throws {
        let reads = [
            ("app = 'app' AND user_id = 'u1' AND kind IN ('fcm', 'push_to_start')", "tokens_user"),
            ("app = 'app' AND activity_id = 'a1' AND kind = 'activity'", "tokens_activity"),
            ("app = 'app' AND activity_id = 'a1' AND kind = 'channel_subscription'", "tokens_activity"),
        ]
        for (condition, index) in reads {
            // As SQL.swift orders them: `+created_at`, so the order cannot pick the index.
            let plan = try plan("SELECT * FROM tokens WHERE \(condition) ORDER BY +created_at")
            #expect(plan.contains("INDEX \(index) ") && !plan.contains("tokens_recent"), "\(plan)")
        }
        // A device's tokens, valid and invalidated each through its own partial index; and a shared
        // activity's timeline, one member's destination at a time.
        for (condition, index) in [
            ("app = 'app' AND device_id IN ('d1', 'd2') AND invalidated_at IS NULL", "tokens_device_valid"),
            ("app = 'app' AND device_id IN ('d1', 'd2') AND invalidated_at IS NOT NULL", "tokens_device_invalid"),
        ] {
            let plan = try plan("SELECT * FROM tokens WHERE \(condition)")
            #expect(plan.contains("INDEX \(index) ") && !plan.contains("tokens_recent"), "\(plan)")
        }
        let timeline = try plan(
            "SELECT * FROM timeline WHERE app = 'app' AND activity_id = 'a1' AND destination = 'f' ORDER BY id DESC LIMIT 200"
        )
        #expect(timeline.contains("INDEX timeline_destination") && !timeline.contains("TEMP B-TREE"), "\(timeline)")
        // Why the `+`: ordered by the column itself, the user's read walks the app's tokens in order.
        let plain = try plan("SELECT * FROM tokens WHERE \(reads[0].0) ORDER BY created_at")
        #expect(plain.contains("tokens_recent"), "\(plain)")
    }
}
