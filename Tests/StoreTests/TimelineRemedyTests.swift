import DropTrackContract
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

@Suite("The timeline's remedy: a closed set stored as its name; other text is a corrupt row")
struct TimelineRemedyTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    func entries(_ remedies: [TimelineRemedy]) -> [TimelineEntry] {
        remedies.map {
            TimelineEntry(
                app: "app", activityId: "a1", at: now, destination: .activity, provider: .server, event: "update",
                version: 1, status: 0, reason: "ok", remedy: $0, latencyMs: 0, priority: 5, attempt: 0)
        }
    }

    @Test("every remedy reads back as written", arguments: StoreEngine.allCases)
    func roundTrip(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction { try $0.appendTimeline(entries(TimelineRemedy.allCases)) }
        let read = try store.transaction { try $0.timeline(app: "app", activityId: "a1", limit: 100) }
        #expect(read.map(\.remedy) == TimelineRemedy.allCases)
    }

    @Test("the stored text is the name rows always had; an unknown one is corrupt", arguments: CorruptibleStore.engines)
    func storedText(engine: StoreEngine) throws {
        let corruptible = try CorruptibleStore(engine)
        let store = corruptible.store
        try store.transaction { try $0.appendTimeline(entries([.none, .deleteToken, .deadLetter, .waitForProvider])) }
        #expect(
            try corruptible.query("SELECT remedy FROM timeline ORDER BY id").split(separator: "\n")
                == ["none", "delete_token", "dead_letter", "wait_for_provider"])
        try corruptible.run("UPDATE timeline SET remedy = 'pray' WHERE remedy = 'dead_letter'")
        expectCorrupt("timeline", "remedy") {
            _ = try store.transaction { try $0.timeline(app: "app", activityId: "a1", limit: 10) }
        }
    }
}
