import DropTrackDispatch
import DropTrackStore
import DropTrackWire
import Testing

@Suite("A provider's remedy is recorded in the timeline under the name the wire layer gives it")
struct TimelineRemedyPushTests {
    @Test("TimelineRemedy(PushRemedy) keeps PushRemedy.name")
    func names() {
        let remedies: [PushRemedy] = [
            .none, .deleteToken, .refreshCredentials, .retry(after: nil), .retry(after: .seconds(3)), .reconnect,
            .rejectRequest,
        ]
        for remedy in remedies {
            #expect(TimelineRemedy(remedy).rawValue == remedy.name, "\(remedy)")
        }
    }
}
