import DropTrackContract
import DropTrackCore
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// A shared activity's progress is read from counters the store keeps as it appends start outcomes,
/// so a read does not walk every member's entries.
@Suite("Start outcomes, counted as the timeline is written")
struct StartOutcomeTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    func entry(_ destination: String, event: String = "start", status: Int, reason: String, remedy: TimelineRemedy)
        -> TimelineEntry
    {
        TimelineEntry(
            app: "app", activityId: "a1", at: now, destination: .token(fingerprint(destination)), provider: .apns,
            event: event, version: 1, status: status, reason: reason, remedy: remedy, latencyMs: 1, priority: 10,
            attempt: 1)
    }

    var entries: [TimelineEntry] {
        [
            entry("f1", status: 200, reason: "ok", remedy: .none),
            entry("f2", status: 429, reason: "TooManyRequests", remedy: .retry),
            entry("f2", status: 200, reason: "ok", remedy: .none),
            entry("f3", status: 410, reason: "Unregistered", remedy: .deleteToken),
            entry("f4", status: 0, reason: "timeout", remedy: .inDoubt),
            entry("f5", status: 0, reason: "connection_refused", remedy: .waitForProvider),
            entry("f1", event: "update", status: 200, reason: "ok", remedy: .none),
        ]
    }

    @Test(
        "started and each final reason are counted; retries, waits and updates are not", arguments: StoreEngine.allCases
    )
    func counted(engine: StoreEngine) throws {
        let store = try engine.make()
        let all = entries
        try store.transaction { try $0.appendTimeline(Array(all.prefix(3))) }
        try store.transaction { try $0.appendTimeline(Array(all.dropFirst(3))) }
        let counts = try store.transaction { try $0.startOutcomes(app: "app", activityId: "a1") }
        #expect(counts == ["started": 2, "Unregistered": 1, "timeout": 1], "\(counts)")
        #expect(try store.transaction { try $0.startOutcomes(app: "app", activityId: "a2") }.isEmpty)
        // A transaction that throws counts nothing.
        try? store.transaction { tx in
            try tx.appendTimeline([entry("f9", status: 200, reason: "ok", remedy: .none)])
            throw ThrownOnPurpose()
        }
        #expect(try store.transaction { try $0.startOutcomes(app: "app", activityId: "a1") }["started"] == 2)
    }

    @Test("a SQLite store from before the counters counts its timeline's newest start outcome per device once")
    func backfilled() throws {
        let path = makeTemporaryDirectory("outcomes") + "/droptrack.sqlite"
        do {
            let store = try SQLiteStore(path: path)
            let all = entries
            try store.transaction { try $0.appendTimeline(all) }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, "DROP TABLE start_outcomes; PRAGMA user_version = 15;"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let upgraded = try SQLiteStore(path: path)
        let counts = try upgraded.transaction { try $0.startOutcomes(app: "app", activityId: "a1") }
        #expect(counts == ["started": 2, "Unregistered": 1, "timeout": 1], "\(counts)")
    }
}
