import DropTrackContract
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// The operator console's lists: newest first, bounded, one app only.
@Suite("Recent activities and tokens, run against every engine")
struct RecentListTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test("activities: newest first, filtered by state, bounded, never another app's", arguments: StoreEngine.allCases)
    func recentActivities(engine: StoreEngine) throws {
        let store = try engine.make()
        try store.transaction { tx in
            for index in 0..<5 {
                var activity = sampleActivity(id: "a\(index)", at: now + Double(index))
                if index % 2 == 0 { activity.state = .ended }
                try tx.insertActivity(activity)
            }
            try tx.insertActivity(sampleActivity("other", id: "a9", at: now + 100))
        }
        try store.transaction { (tx) throws in
            #expect(try tx.recentActivities(app: "app", state: nil, limit: 3).records.map(\.id) == ["a4", "a3", "a2"])
            #expect(
                try tx.recentActivities(app: "app", state: .ended, limit: 10).records.map(\.id) == ["a4", "a2", "a0"])
            #expect(try tx.recentActivities(app: "app", state: .active, limit: 1).records.map(\.id) == ["a3"])
            #expect(try tx.recentActivities(app: "app", state: .pending, limit: 10).records.isEmpty)
            #expect(try tx.recentActivities(app: "other", state: nil, limit: 10).records.map(\.id) == ["a9"])
            #expect(try tx.recentActivities(app: "app", state: nil, limit: 0).records.isEmpty)
        }
    }

    @Test("tokens: newest registrations and newest invalidations first, bounded", arguments: StoreEngine.allCases)
    func recentTokens(engine: StoreEngine) throws {
        let store = try engine.make()
        let tokens = (0..<4).map { sampleToken(device: "d\($0)", at: now + Double($0)) }
        try store.transaction { tx in
            try tx.saveTokens(tokens + [sampleToken("other", at: now + 50)])
            try tx.invalidateTokens(
                app: "app", fingerprints: [tokens[3].fingerprint], reason: .provider("gone"), at: now + 10)
            try tx.invalidateTokens(
                app: "app", fingerprints: [tokens[1].fingerprint], reason: .provider("stale"), at: now + 20)
        }
        try store.transaction { (tx) throws in
            #expect(try tx.recentTokens(app: "app", limit: 2).records.map(\.deviceId) == ["d3", "d2"])
            #expect(try tx.recentTokens(app: "app", limit: 10).records.count == 4)
            let invalidated = try tx.recentInvalidations(app: "app", limit: 10).records
            #expect(invalidated.map(\.deviceId) == ["d1", "d3"])
            #expect(invalidated.map(\.invalidReason?.stored) == ["stale", "gone"])
            #expect(try tx.recentInvalidations(app: "app", limit: 1).records.map(\.deviceId) == ["d1"])
            #expect(try tx.recentInvalidations(app: "other", limit: 10).records.isEmpty)
        }
    }
}
