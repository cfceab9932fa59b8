import Foundation

/// What a person can do from the delivery Live Activity itself: a button in the card (iOS 17 and later)
/// whose press reaches the server as `POST /v1/activities/{id}/actions`.
///
/// The server accepts only these names for a `DeliveryAttributes` activity, and turns each into the
/// delivery event it stands for, so the card shows the result at once: the press is also sent to the
/// app's backend as the `activity_action` webhook event.
public enum DeliveryAction: String, CaseIterable, Sendable, Codable {
    /// The customer has the order in hand: the delivery moves to its last step and ends.
    case confirmReceipt = "confirm_receipt"

    /// The button's label.
    public var title: String {
        switch self {
        case .confirmReceipt: "Got it"
        }
    }

    /// The step the press moves the delivery to (a `delivery.step` event).
    public var step: DeliveryStep {
        switch self {
        case .confirmReceipt: .delivered
        }
    }

    /// The action the card offers at the step whose headline is `status`: receipt once the courier is
    /// almost there, nothing before (nobody confirms an order still being prepared).
    public static func offered(status: String) -> DeliveryAction? {
        status == DeliveryStep.nearby.status ? .confirmReceipt : nil
    }
}
