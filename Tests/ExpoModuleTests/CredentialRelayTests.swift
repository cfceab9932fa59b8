import DropTrackTesting
import Foundation
import Synchronization
import Testing

@testable import DropTrackExpo

/// Device credentials come from JavaScript: a request is an `onCredentialNeeded` event, answered by
/// `setDeviceCredential`, or refused with the fix when no answer comes in time.
@Suite("The Expo module's credential relay")
struct CredentialRelayTests {
    @Test("a request sends onCredentialNeeded ('start', then 'expired'), and setDeviceCredential answers it")
    func relayed() async throws {
        let reasons = Mutex<[String]>([])
        let relay = CredentialRelay(timeout: .seconds(10)) { reason in reasons.withLock { $0.append(reason) } }
        async let first = relay.credential()
        #expect(await waitFor { reasons.withLock { $0 } == ["start"] })
        await relay.supply("credential-1")
        #expect(try await first == "credential-1")

        async let second = relay.credential()
        #expect(await waitFor { reasons.withLock { $0 } == ["start", "expired"] })
        await relay.supply("credential-2")
        #expect(try await second == "credential-2")
    }

    @Test("no answer in time fails the request with an error naming setDeviceCredential and fetchCredential")
    func timesOut() async {
        let relay = CredentialRelay(timeout: .milliseconds(100)) { _ in }
        let error = await #expect(throws: DropTrackExpoError.self) { try await relay.credential() }
        #expect(error?.message.contains("setDeviceCredential") == true)
        #expect(error?.message.contains("fetchCredential") == true)
        #expect(error?.localizedDescription.hasPrefix("DropTrack: no device credential") == true)
    }
}
