import DropTrackContract
import DropTrackEmulators
import DropTrackLive
import DropTrackTesting
import Foundation
import Synchronization
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

/// The module as JavaScript sees it, through the look-alike's recording of its definition. ActivityKit's
/// look-alike keeps one state per attributes type for the whole process, so these run one at a time and
/// find their own activities and tokens by id rather than by count.
@Suite("The Expo module's iOS side, called as JavaScript calls it", .serialized)
struct ExpoModuleTests {
    /// The module, its recorded definition, and the events it sent (their string fields, which is all
    /// DropTrack's events carry).
    final class Loaded {
        let module: DropTrackModule
        let definition: ModuleDefinition
        let events = EventLog()

        init() {
            module = DropTrackModule(appContext: AppContext())
            definition = module.definition()
            let events = self.events
            module.addEventListener { name, body in events.append(name, body.compactMapValues { $0 as? String }) }
        }

        func sent(_ name: String) -> [[String: String]] { events.all.filter { $0.name == name }.map(\.body) }
    }

    final class EventLog: Sendable {
        private let entries = Mutex<[(name: String, body: [String: String])]>([])

        func append(_ name: String, _ body: [String: String]) { entries.withLock { $0.append((name, body)) } }

        var all: [(name: String, body: [String: String])] { entries.withLock { $0 } }
    }

    @Test("it is named DropTrack and exports exactly the functions and events of DropTrackNativeModule.ts")
    func nativeInterface() {
        let loaded = Loaded()
        #expect(loaded.definition.name == "DropTrack")
        #expect(loaded.definition.eventNames == ["onToken", "onPush", "onCredentialNeeded"])
        #expect(
            loaded.definition.functionNames == [
                "areActivitiesEnabled", "canPostPromotedNotifications", "configure", "endDelivery",
                "getRunningActivities",
                "isPushToStartEligible", "isSupported", "openLiveActivitySettings", "reconcile",
                "requestNotificationPermission",
                "setDeviceCredential", "startDelivery", "updateDelivery",
            ])
    }

    @Test(
        "startDelivery, updateDelivery and endDelivery drive ActivityKit; getRunningActivities answers etaEpochMillis")
    func deliveries() async throws {
        let loaded = Loaded()
        let orderID = "order-\(UUID().uuidString.prefix(8))"
        let state = DeliveryStateConversionTests.state()
        let localID = try #require(try await loaded.definition.call("startDelivery", [orderID, state]) as? String)

        var moved = state
        moved["status"] = "Picked up"
        #expect(try await loaded.definition.call("updateDelivery", [orderID, moved]) as? Bool == true)
        #expect(try await loaded.definition.call("updateDelivery", ["no-such-order", moved]) as? Bool == false)

        let running = try #require(
            try await loaded.definition.call("getRunningActivities") as? [[String: any Sendable]])
        let mine = try #require(running.first { $0["localId"] as? String == localID })
        #expect(mine["activityId"] as? String == orderID)
        #expect(mine["state"] as? String == "active")
        let contentState = try #require(mine["contentState"] as? [String: any Sendable])
        #expect(contentState["status"] as? String == "Picked up")
        #expect(contentState["etaEpochMillis"] as? Double == DeliveryStateConversionTests.eta)

        _ = try await loaded.definition.call("endDelivery", [localID, NSNull(), 0.0])
        let ended = Activity<DeliveryAttributes>.activities.first { $0.id == localID }
        #expect(ended == nil || ended?.activityState == .ended || ended?.activityState == .dismissed)
    }

    @Test("getRunningActivities says \"pending\" for a delivery scheduled to start later (iOS 26), not \"active\"")
    func scheduledDeliveryIsPending() async throws {
        let loaded = Loaded()
        let orderID = "order-\(UUID().uuidString.prefix(8))"
        let state = try DeliveryStateConversion.contentState(DeliveryStateConversionTests.state())
        let scheduled = try Activity<DeliveryAttributes>.request(
            attributes: DeliveryAttributes(orderId: orderID), content: ActivityContent(state: state, staleDate: nil),
            pushType: .token, style: .standard,
            alertConfiguration: AlertConfiguration(title: "Your order", body: "Starts soon", sound: .default),
            start: Date().addingTimeInterval(3600))
        let running = try #require(
            try await loaded.definition.call("getRunningActivities") as? [[String: any Sendable]])
        await scheduled.end(nil, dismissalPolicy: .immediate)
        #expect(running.first { $0["activityId"] as? String == orderID }?["state"] as? String == "pending")
    }

    @Test("a state with the ETA in seconds is refused through the module, naming the field")
    func secondsRefusedThroughTheModule() async {
        let loaded = Loaded()
        let seconds = DeliveryStateConversionTests.state(["etaEpochMillis": 1_767_225_600.0])
        let error = await #expect(throws: (any Error).self) {
            _ = try await loaded.definition.call("startDelivery", ["order-seconds", seconds])
        }
        #expect(error?.localizedDescription.contains("etaEpochMillis") == true)
    }

    @Test("arguments are decoded as Expo decodes them: a wrong type and too many are refused, null is nil")
    func argumentsDecoded() async throws {
        let loaded = Loaded()
        let wrongType = await #expect(throws: ArgumentCastException.self) {
            _ = try await loaded.definition.call("configure", [42.0, "user", NSNull(), NSNull()])
        }
        #expect(wrongType?.reason.contains("index '0'") == true)
        await #expect(throws: ArgumentCastException.self) {
            _ = try await loaded.definition.call("isSupported", ["extra"])
        }
        #expect(try await loaded.definition.call("isSupported") as? Bool == true)
        // A null final state and an omitted dismissal are both nil: the unknown id is what is refused.
        let unknown = await #expect(throws: (any Error).self) {
            _ = try await loaded.definition.call("endDelivery", ["no-such-order", NSNull()])
        }
        #expect(unknown?.localizedDescription.contains("getRunningActivities") == true)
    }

    @Test("reconcile before configure is refused with the fix")
    func reconcileBeforeConfigure() async {
        let loaded = Loaded()
        let error = await #expect(throws: (any Error).self) { _ = try await loaded.definition.call("reconcile") }
        #expect(error?.localizedDescription.contains("DropTrack.configure") == true)
    }
}
