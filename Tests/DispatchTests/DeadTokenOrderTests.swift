import DropTrackStore
import DropTrackTesting
import Testing

@testable import DropTrackDispatch

/// Invalidating a token locks its activity's `activity_token_counts` row until the flush commits: in
/// the order sends finished, two replicas could take two activities' rows in opposite orders.
@Suite("A flush invalidates its dead tokens in one order: app, activity id, fingerprint")
struct DeadTokenOrderTests {
    @Test("noted in the order sends finished, applied sorted, each token once with its first reason")
    func order() {
        var dead = DeadTokens()
        let noted: [(app: String, activity: String, fingerprint: String, reason: String)] = [
            ("app2", "a1", "0b", "Unregistered"), ("app1", "b", "ff", "Unregistered"),
            ("app1", "a", "f0", "BadDeviceToken"), ("app1", "b", "01", "Unregistered"),
            ("app1", "a", "0a", "Unregistered"), ("app1", "b", "ff", "ExpiredToken"),
            ("app1", "a-z", "00", "Unregistered"),
        ]
        for token in noted {
            dead.add(
                app: token.app, activityId: token.activity, fingerprint: fingerprint(token.fingerprint),
                reason: .provider(token.reason))
        }
        var applied: [String] = []
        dead.apply {
            applied.append("\($0.app) \($0.activityId) \(String(describing: $0.fingerprint).prefix(2)) \($0.reason)")
        }
        #expect(
            applied == [
                "app1 a 0a Unregistered", "app1 a f0 BadDeviceToken",
                "app1 a-z 00 Unregistered", "app1 b 01 Unregistered",
                "app1 b ff Unregistered", "app2 a1 0b Unregistered",
            ])
    }
}
