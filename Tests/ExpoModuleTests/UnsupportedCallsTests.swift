import DropTrackContract
import DropTrackLive
import Foundation
import Testing

@testable import DropTrackExpo

#if canImport(ExpoModulesCore)
    import ExpoModulesCore
#else
    import ExpoModulesCoreShim
#endif

/// The module below iOS 16.2 (Expo's apps target 15.1): `UnsupportedCalls`, which needs no ActivityKit.
/// On Linux `#available(iOS 16.2, *)` holds, so the module uses `LiveCalls`; these call the other side.
@Suite("The Expo module below iOS 16.2, and its definition's builder")
struct UnsupportedCallsTests {
    let calls = UnsupportedCalls(osVersion: "15.8")

    @Test("below iOS 16.2 nothing is supported, configure and reconcile do nothing, and nothing is running")
    func nothingRuns() async throws {
        #expect(!calls.isSupported && !calls.areActivitiesEnabled())
        try await calls.configure(
            SyncSettings(serverURL: "https://push.example.com", userID: "u1", deviceID: "d1", apnsEnvironment: nil))
        let outcome = try await calls.reconcile()
        #expect((outcome["endedLocally"] as? [String]) == [] && (outcome["reportedLost"] as? [String]) == [])
        #expect(calls.runningActivities().isEmpty)
    }

    @Test(
        "below iOS 16.2 starting, updating or ending a delivery fails naming iOS 16.2, the phone's iOS and isSupported")
    func deliveriesRefused() async {
        let start = #expect(throws: DropTrackExpoError.self) {
            _ = try calls.startDelivery(orderID: "o1", state: [:])
        }
        #expect(start?.message.contains("iOS 16.2") == true && start?.message.contains("iOS 15.8") == true)
        #expect(start?.message.contains("isSupported") == true && start?.code == "ERR_DROPTRACK")
        await #expect(throws: DropTrackExpoError.self) { _ = try await calls.updateDelivery("o1", state: [:]) }
        await #expect(throws: DropTrackExpoError.self) {
            try await calls.endDelivery("o1", state: nil, dismissAfterSeconds: nil)
        }
    }

    /// A module whose definition holds `if #available`, as Expo's builder allows.
    final class ConditionalModule: Module {
        func definition() -> ModuleDefinition {
            Name("Conditional")
            if #available(iOS 16.2, *) {
                Function("newer") { () -> Int in 1 }
            }
            Function("always") { () -> Int in 2 }
        }
    }

    @Test("a definition may hold `if #available` (Expo's buildOptional and buildLimitedAvailability)")
    func availabilityInDefinition() async throws {
        let definition = ConditionalModule(appContext: AppContext()).definition()
        #expect(definition.name == "Conditional")
        #expect(definition.functionNames == ["always", "newer"])
        #expect(try await definition.call("newer") as? Int == 1)
    }
}
