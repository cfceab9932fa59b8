import DropTrackContract
import DropTrackLive
import DropTrackTesting
import Foundation
import Testing

@testable import DropTrackExpo

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif
#if canImport(ExpoModulesCore)
    import ExpoModulesCore
#else
    import ExpoModulesCoreShim
#endif

extension ExpoModuleTests {
    /// The placeholders the look-alike saw requested while `body` ran, and their states afterwards.
    func placeholdersRequested(during body: () async throws -> Void) async rethrows -> [ActivityState] {
        let updates = Activity<DeliveryAttributes>.activityUpdates
        let watcher = Task { () -> [ActivityState] in
            var found: [Activity<DeliveryAttributes>] = []
            for await activity in updates where activity.attributes.orderId == PlaceholderActivity.activityID {
                found.append(activity)
            }
            return found.map(\.activityState)
        }
        try await body()
        // The feed hands a start over asynchronously; then the watcher stops and says what it saw.
        try? await Task.sleep(for: .milliseconds(200))
        watcher.cancel()
        return await watcher.value
    }

    func session(osVersion: String, placeholder: Bool?) async throws -> DropTrackSession {
        let base = URL(fileURLWithPath: makeTemporaryDirectory("expo-placeholder"))
        let session = DropTrackSession(ledgerBase: { base }, osVersion: osVersion) { _, _ in }
        // Nothing listens there: the sync retries its registrations, which this test does not need.
        try await session.configure(
            SyncSettings(
                serverURL: "http://127.0.0.1:9", userID: "u-placeholder", deviceID: "d-placeholder",
                apnsEnvironment: "sandbox", pushToStartPlaceholder: placeholder))
        return session
    }

    @Test("configure's pushToStartPlaceholder starts the hidden placeholder on iOS 17.x and dismisses it at once")
    func placeholderOnSeventeen() async throws {
        let states = try await placeholdersRequested {
            let session = try await session(osVersion: "17.4", placeholder: true)
            await session.stop()
        }
        #expect(states == [.dismissed])
        #expect(
            !Activity<DeliveryAttributes>.activities.contains {
                $0.attributes.orderId == PlaceholderActivity.activityID
            })
    }

    @Test("without the option, or on iOS 18, configure starts no placeholder")
    func noPlaceholder() async throws {
        for (version, option) in [("17.4", nil), ("17.4", false), ("18.1", true)] as [(String, Bool?)] {
            let states = try await placeholdersRequested {
                let session = try await session(osVersion: version, placeholder: option)
                await session.stop()
            }
            #expect(states.isEmpty, "iOS \(version), option \(String(describing: option))")
        }
    }

    @Test("configure takes pushToStartPlaceholder from JavaScript as its fifth argument, and it may be left out")
    func placeholderArgument() async throws {
        let loaded = Loaded()
        defer { loaded.definition.run(.moduleDestroy) }
        let refused = await #expect(throws: (any Error).self) {
            _ = try await loaded.definition.call(
                "configure", ["http://127.0.0.1:9", "", String?.none as Any, String?.none as Any, true])
        }
        #expect("\(refused.map { "\($0)" } ?? "")".contains("userId"))
        #expect(
            try SyncSettings(
                serverURL: "https://push.example.com", userID: "u", deviceID: "d", apnsEnvironment: nil,
                pushToStartPlaceholder: true
            ).pushToStartPlaceholder)
        #expect(
            try !SyncSettings(serverURL: "https://push.example.com", userID: "u", deviceID: "d", apnsEnvironment: nil)
                .pushToStartPlaceholder)
    }
}
