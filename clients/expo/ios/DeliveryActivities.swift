import DropTrackContract
import DropTrackLive
import Foundation

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

/// The delivery calls JavaScript makes on the phone itself, through `LiveActivityBridge`. An activity
/// is named by its local id (what `startDelivery` answers) or by its order id (DropTrack's activity id).
@available(iOS 16.2, *)
struct DeliveryActivities {
    let bridge = LiveActivityBridge<DeliveryAttributes>()

    /// Starts a delivery activity with an update token; answers its local id.
    func start(orderID: String, state: [String: Any]) throws -> String {
        guard !orderID.isEmpty else { throw DropTrackExpoError(field: "orderId", "'orderId' must not be empty") }
        let contentState = try DeliveryStateConversion.contentState(state)
        return try bridge.start(attributes: DeliveryAttributes(orderId: orderID), state: contentState).id
    }

    /// Updates it from the app, stamped now; false when the phone shows no such activity.
    func update(_ id: String, state: [String: Any]) async throws -> Bool {
        let contentState = try DeliveryStateConversion.contentState(state)
        // An ended activity stays listed until it is dismissed, and ActivityKit ignores updates to it: saying true
        // would tell JavaScript the card changed when it did not (Android answers false here too).
        guard let activity = running(id), activity.activityState != .ended, activity.activityState != .dismissed
        else { return false }
        await bridge.update(activity, state: contentState)
        return true
    }

    /// Ends it with an optional final state; `dismissAfterSeconds` nil keeps iOS's default, 0 removes it now.
    func end(_ id: String, state: [String: Any]?, dismissAfterSeconds: Double?) async throws {
        let finalState = try state.map(DeliveryStateConversion.contentState)
        if let dismissAfterSeconds, dismissAfterSeconds < 0 || !dismissAfterSeconds.isFinite {
            throw DropTrackExpoError(
                field: "dismissAfterSeconds",
                "'dismissAfterSeconds' must be 0 or more seconds, or null for iOS's default")
        }
        guard let activity = running(id) else {
            throw DropTrackExpoError(
                field: "activityId",
                "the phone shows no delivery '\(id)': pass the id startDelivery answered or the order id "
                    + "(getRunningActivities lists them)")
        }
        await bridge.end(activity, finalState: finalState, dismissAfter: dismissAfterSeconds)
    }

    /// The delivery activities the phone has, in JavaScript's `RunningActivity` shape.
    func runningActivities() -> [[String: any Sendable]] {
        bridge.runningActivities.map(DeliveryStateConversion.runningActivity)
    }

    private func running(_ id: String) -> Activity<DeliveryAttributes>? {
        bridge.runningActivities.first { $0.id == id } ?? bridge.runningActivities.first { $0.attributes.orderId == id }
    }
}
