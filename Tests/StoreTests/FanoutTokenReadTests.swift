import DropTrackContract
import DropTrackCore
import DropTrackModel
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
                try $0.fanoutTokens(app: "app", activityId: "a1", range: range, after: nil, limit: 100)
            }
        }
        let expected = tokens.sorted { $0.fingerprint < $1.fingerprint }.map {
            FanoutToken(fingerprint: $0.fingerprint, token: $0.token, environment: $0.environment)
        }
        #expect(read == expected)
    }
}
