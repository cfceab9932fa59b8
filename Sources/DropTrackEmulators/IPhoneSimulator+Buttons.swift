import DropTrackContract
import DropTrackLive
import Foundation

/// A tap on a delivery card's button could not be made.
public struct IPhoneButtonError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
}

extension IPhoneSimulator {
    /// A tap on the button of the delivery card `localID`, as iOS 17 makes it: the card offers the
    /// action at its step (`DeliveryAction.offered`, the widget's rule), and iOS performs the button's
    /// `DeliveryActionIntent` in the app's process, which sends the press through the app's registered
    /// `LiveActivitySync`. Throws when the card shows no such button, or the intent's error.
    public func pressButton(activityID localID: String, action: DeliveryAction) async throws {
        guard let activity = activities.first(where: { $0.id == localID }) else {
            throw IPhoneButtonError(description: "the phone shows no activity \(localID)")
        }
        let status = activity.contentState["status"]?.stringValue ?? ""
        guard activity.attributesType == DeliveryAttributes.typeName, DeliveryAction.offered(status: status) == action,
            // `DeliveryAttributes.dropTrackActivityID`: the server's id is the order's.
            let serverID = activity.attributes["orderId"]?.stringValue
        else {
            throw IPhoneButtonError(description: "the card at '\(status)' shows no '\(action.rawValue)' button")
        }
        _ = try await DeliveryActionIntent(activityID: serverID, action: action).perform()
    }
}
