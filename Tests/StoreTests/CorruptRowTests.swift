import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// A SQL store and a way to change its rows behind its back, with the engine's own command-line
/// client (sqlite3, psql), as a hand edit or an outside tool would.
struct CorruptibleStore {
    let engine: StoreEngine
    let store: any DeliveryStore
    private let path: String

    /// The engines with rows to corrupt (the memory store keeps records, not rows).
    static var engines: [StoreEngine] { StoreEngine.allCases.filter { $0 != .memory } }

    struct ClientFailed: Error, CustomStringConvertible {
        var description: String
    }

    init(_ engine: StoreEngine) throws {
        self.engine = engine
        switch engine {
        case .sqlite:
            path = makeTemporaryDirectory("corrupt") + "/droptrack.sqlite"
            store = try SQLiteStore(path: path)
        case .postgres:
            path = try PostgresTestServer.freshSchema().url
            store = try PostgresStore(url: path)
        case .memory:
            throw ClientFailed(description: "the memory store has no rows to corrupt")
        }
    }

    /// Runs `sql` on the store's database, outside the store.
    func run(_ sql: String) throws { _ = try query(sql) }

    /// Runs `sql` on the store's database, outside the store, and returns what the client printed.
    func query(_ sql: String) throws -> String {
        if engine == .postgres { return try PostgresTestServer.psql(path, sql) }
        let client = "/usr/bin/sqlite3"
        guard FileManager.default.isExecutableFile(atPath: client) else {
            throw ClientFailed(description: "\(client) is missing: apt-get install sqlite3")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: client)
        process.arguments = ["-cmd", ".timeout 5000", "-bail", path, sql]
        let errors = Pipe()
        let output = Pipe()
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ClientFailed(description: "sqlite3 \(path) failed running \(sql): \(problem)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Drops the NOT NULL constraint of `column`, so a NULL can be written where the store never writes one.
    func allowNull(table: String, column: String) throws {
        if engine == .postgres {
            try run("ALTER TABLE \(table) ALTER COLUMN \(column) DROP NOT NULL")
        } else {
            // SQLite cannot drop a constraint; a copy made with CREATE TABLE … AS has none.
            try run(
                "CREATE TABLE loose AS SELECT * FROM \(table); DROP TABLE \(table); ALTER TABLE loose RENAME TO \(table)"
            )
        }
    }
}

/// Checks that `read` throws `corruptRow` naming `table` and `column`, and returns the error.
@discardableResult
func expectCorrupt(
    _ table: String, _ column: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ read: () throws -> Void
) -> StoreError? {
    let error = #expect(throws: StoreError.self, sourceLocation: sourceLocation) { try read() }
    #expect(error?.code == .corruptRow, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.corruptRow?.table == table, sourceLocation: sourceLocation)
    #expect(error?.corruptRow?.column == column, "\(String(describing: error))", sourceLocation: sourceLocation)
    return error
}

@Suite("Corrupt rows throw corruptRow, naming the table, row and column, instead of reading as defaults")
struct CorruptRowTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test(
        "tokens: an unknown kind or environment, a NULL device id, a date that is not a number",
        arguments: CorruptibleStore.engines)
    func tokens(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        let token = sampleToken()
        try store.transaction { try $0.saveToken(token) }
        let read = { _ = try store.transaction { try $0.token(app: "app", fingerprint: token.fingerprint) } }

        try corruptible.run("UPDATE tokens SET kind = 'bogus'")
        let error = expectCorrupt("tokens", "kind", read)
        #expect(error?.corruptRow?.key.contains(token.fingerprint.value) == true)
        // Tokens are secrets: the error names the row by fingerprint only.
        #expect(error.map { !"\($0)".contains(token.token.wireValue) } == true)
        // The listing reads go through the same mapper.
        expectCorrupt("tokens", "kind") {
            _ = try store.transaction { try $0.tokens(app: "app", fingerprints: [token.fingerprint]) }
        }

        try corruptible.run("UPDATE tokens SET kind = 'activity', environment = 'staging'")
        expectCorrupt("tokens", "environment", read)

        // environment may be NULL (Android tokens have none); device_id may not.
        try corruptible.run("UPDATE tokens SET environment = NULL")
        #expect(try store.transaction { try $0.token(app: "app", fingerprint: token.fingerprint) }?.environment == nil)
        try corruptible.allowNull(table: "tokens", column: "device_id")
        try corruptible.run("UPDATE tokens SET device_id = NULL")
        expectCorrupt("tokens", "device_id", read)

        if engine == .sqlite {
            try corruptible.run("UPDATE tokens SET device_id = 'd1', created_at = 'yesterday'")
            expectCorrupt("tokens", "created_at", read)
        }
    }

    @Test(
        "activities: an unknown state, attributes that are not JSON, a version that is not a number",
        arguments: CorruptibleStore.engines)
    func activities(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        try store.transaction { try $0.insertActivity(sampleActivity()) }
        let read = { _ = try store.transaction { try $0.activity(app: "app", id: "a1") } }

        try corruptible.run("UPDATE activities SET state = 'bogus'")
        let error = expectCorrupt("activities", "state", read)
        #expect(error?.corruptRow?.key.contains("a1") == true)

        try corruptible.run("UPDATE activities SET state = 'active', attributes = '{\"orderId\": '")
        expectCorrupt("activities", "attributes", read)

        if engine == .sqlite {
            try corruptible.run("UPDATE activities SET attributes = '{}', version = 'seven'")
            expectCorrupt("activities", "version", read)
        }
    }

    @Test(
        "outbox: a first-queued time that is NaN is an error, and a claim moves the row to the dead letters",
        arguments: CorruptibleStore.engines)
    func outbox(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        try store.transaction {
            try $0.enqueue(
                app: "app", activityId: "a1", fingerprints: [fingerprint("f1")], version: 1, availableAt: now, now: now)
        }
        try corruptible.run("UPDATE outbox SET first_queued_at = 'NaN'")
        expectCorrupt("outbox", "first_queued_at") { _ = try store.transaction { try $0.outboxStats() } }
        try store.transaction {
            try $0.enqueue(
                app: "app", activityId: "a1", fingerprints: [fingerprint("f2")], version: 1, availableAt: now, now: now)
        }
        // The app's other sends go on: the unreadable row is set aside, named in its dead letter.
        let claimed = try store.transaction {
            try $0.claim(app: "app", limit: 10, owner: "w", until: now + 30, now: now)
        }
        #expect(claimed.map(\.destination) == [.token(fingerprint: fingerprint("f2"))])
        let stats = try store.transaction { try $0.outboxStats() }
        #expect(stats.deadLetters == 1 && stats.depth == 1)
        let reason = try corruptible.query("SELECT last_error FROM dead_letters")
        #expect(reason.contains("first_queued_at"), "\(reason)")
    }

    @Test(
        "timeline: a time that is NaN, a status that is not a number, a provider that is none of apns, fcm, server",
        arguments: CorruptibleStore.engines)
    func timeline(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        let entry = TimelineEntry(
            app: "app", activityId: "a1", at: now, destination: .token(fingerprint("f1")), provider: .apns,
            event: "start", version: 1,
            status: 200, reason: "ok", remedy: .none, latencyMs: 12, priority: 10, attempt: 1)
        try store.transaction { try $0.appendTimeline([entry]) }
        let read = { _ = try store.transaction { try $0.timeline(app: "app", activityId: "a1", limit: 10) } }

        try corruptible.run("UPDATE timeline SET at = 'NaN'")
        let error = expectCorrupt("timeline", "at", read)
        #expect(error?.corruptRow?.key.contains("a1") == true)

        if engine == .sqlite {
            try corruptible.run("UPDATE timeline SET at = 1796000000, status = 'teapot'")
            expectCorrupt("timeline", "status", read)
            try corruptible.run("UPDATE timeline SET status = 200")
        }
        // Before the provider was an enum, any text here read back as a plausible provider.
        try corruptible.run("UPDATE timeline SET at = 1796000000, provider = 'pigeon'")
        expectCorrupt("timeline", "provider", read)
    }
}

@Suite("A corrupt fan-out range row throws corruptRow naming the column")
struct FanoutCorruptRowTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test(
        "fanout_jobs: a range outside 0…15, a date that is not a number (a claim sets the row aside)",
        arguments: CorruptibleStore.engines)
    func fanoutJobs(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        try store.transaction {
            try $0.requestFanout(app: "app", activityId: "a1", version: 2, availableAt: now, now: now)
        }
        let read = { _ = try store.transaction { try $0.fanoutJobs(app: "app", activityId: "a1") } }
        try corruptible.run("UPDATE fanout_jobs SET range_index = 99 WHERE range_index = 5")
        let error = expectCorrupt("fanout_jobs", "range_index", read)
        #expect(error?.corruptRow?.key.contains("a1") == true)
        // A claim sets such a row aside instead (FanoutQuarantineTests), and the other ranges go on.
        let claimed = try store.transaction {
            try $0.claimFanout(app: "app", limit: 16, owner: "w1", until: now + 60, now: now)
        }
        #expect(claimed.count == 15)
        try corruptible.run("UPDATE fanout_jobs SET first_queued_at = 'NaN' WHERE range_index = 2")
        expectCorrupt("fanout_jobs", "first_queued_at", read)
    }
}
