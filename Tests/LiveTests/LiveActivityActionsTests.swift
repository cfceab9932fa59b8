import DropTrackContract
import DropTrackLive
import Foundation
import Testing

/// The card's intent over in-memory seams: which registered sync a press goes through, the one
/// credential refresh, and a refusal thrown to the intent.
@Suite("DeliveryActionIntent and LiveActivityActions over in-memory seams")
struct LiveActivityActionsTests {
    /// A sync whose phone shows the server activity `activityID`, registered for the card's buttons.
    static func registeredRig(showing activityID: String) -> SyncRig {
        let rig = SyncRig()
        rig.host.start(localID: "local-\(activityID)", serverID: activityID, token: token(7))
        LiveActivityActions.register(rig.sync)
        return rig
    }

    static func presses(_ rig: SyncRig) async -> [ActionPress] {
        await rig.api.calls.compactMap {
            if case .press(let press) = $0 { return press }
            return nil
        }
    }

    @Test("with several syncs registered, the intent's press goes through the one whose phone shows the activity")
    func routesToThePhoneShowingIt() async throws {
        let first = Self.registeredRig(showing: "order-pa")
        let second = Self.registeredRig(showing: "order-pb")
        _ = try await DeliveryActionIntent(activityID: "order-pa", action: .confirmReceipt).perform()
        #expect(
            await Self.presses(first) == [
                ActionPress(activityID: "order-pa", deviceID: "iphone-1", action: "confirm_receipt")
            ])
        #expect(await Self.presses(second).isEmpty)
        _ = try await DeliveryActionIntent(activityID: "order-pb", action: .confirmReceipt).perform()
        #expect(await Self.presses(second).map(\.activityID) == ["order-pb"])
        #expect(await first.sync.history.contains { if case .actionPressed = $0 { true } else { false } })
    }

    @Test("a 401 asks for a fresh credential once and the press lands; a refusal is thrown to the intent, not retried")
    func refreshThenRefusal() async throws {
        let rig = Self.registeredRig(showing: "order-pc")
        await rig.api.fail(.unauthorized)
        _ = try await DeliveryActionIntent(activityID: "order-pc", action: .confirmReceipt).perform()
        #expect(await rig.api.credentialRefreshes == 1)
        #expect(await Self.presses(rig).count == 1)

        await rig.api.fail(DeviceAPIError(status: 409, code: "activity_ended", message: "ended"))
        await #expect(throws: DeviceAPIError.self) {
            _ = try await DeliveryActionIntent(activityID: "order-pc", action: .confirmReceipt).perform()
        }
        #expect(await Self.presses(rig).count == 1, "a refused press is not sent again")
    }
}
