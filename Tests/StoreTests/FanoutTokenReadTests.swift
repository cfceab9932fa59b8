import DropTrackContract
import DropTrackCore
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

@Suite("A range batch's tokens: what a send needs, read from the covering index")
struct FanoutTokenReadTests {
    @Test("each token comes with its fingerprint, token and environment", arguments: StoreEngine.allCases)
    func content(engine: StoreEngine) throws {
        let store = try engine.make()
        var tokens = (0..<40).map { sampleToken(device: "d\($0)") }
        tokens[3].environment = .production
        tokens[4].environment = nil
        try store.transaction { try $0.saveTokens(tokens) }
        var read: [FanoutToken] = []
        for range in 0..<FanoutJob.rangeCount {
            read += try store.transaction {
                try $0.fanoutTokens(app: "app", activityId: "a1", range: range, after: "", limit: 100)
            }
        }
        let expected = tokens.sorted { $0.fingerprint < $1.fingerprint }.map {
            FanoutToken(fingerprint: $0.fingerprint, token: $0.token, environment: $0.environment)
        }
        #expect(read == expected)
    }

    @Test("SQLite reads a batch from the index alone, never the tokens' table rows")
    func coveringPlan() throws {
        let path = makeTemporaryDirectory("plan") + "/droptrack.sqlite"
        let store = try SQLiteStore(path: path)
        try store.transaction { try $0.saveTokens((0..<20).map { sampleToken(device: "d\($0)") }) }
        // The three statement shapes: the first range has no lower bound, the last no upper one.
        for bounds in [
            "AND fingerprint < '1'", "AND fingerprint >= '7' AND fingerprint < '8'", "AND fingerprint >= 'f'",
        ] {
            let plan = try sqlite(
                path,
                """
                EXPLAIN QUERY PLAN SELECT fingerprint, token, environment FROM tokens
                WHERE app = 'app' AND activity_id = 'a1' AND kind = 'activity' AND invalidated_at IS NULL
                AND fingerprint > '' \(bounds) ORDER BY fingerprint LIMIT 500
                """)
            #expect(plan.contains("USING COVERING INDEX tokens_activity_fanout"), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "sorted by the index, not afterwards: \(plan)")
        }
    }

    private func sqlite(_ path: String, _ sql: String) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}
