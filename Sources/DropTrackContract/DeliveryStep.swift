import Foundation

/// The handbook's seven steps of a delivery, from "order placed" to "delivered".
///
/// Each step fixes what the card shows: the status line, the progress (step n of 7 lights n
/// segments), the stops before this customer, and how far away the ETA is.
public enum DeliveryStep: Int, CaseIterable, Sendable, Codable {
    case placed = 1
    case confirmed
    case preparing
    case pickedUp
    case onTheWay
    case nearby
    case delivered

    /// The card's headline for this step.
    public var status: String {
        switch self {
        case .placed: "Order placed"
        case .confirmed: "Order confirmed"
        case .preparing: "Preparing your order"
        case .pickedUp: "Picked up"
        case .onTheWay: "On the way"
        case .nearby: "Almost there"
        case .delivered: "Delivered"
        }
    }

    /// The short machine name used in events and the Android data map (`placed`, `picked_up`, …).
    public var name: String {
        switch self {
        case .placed: "placed"
        case .confirmed: "confirmed"
        case .preparing: "preparing"
        case .pickedUp: "picked_up"
        case .onTheWay: "on_the_way"
        case .nearby: "nearby"
        case .delivered: "delivered"
        }
    }

    /// Finds a step by its `name` or its number (1–7).
    public init?(name: String) {
        if let number = Int(name), let step = DeliveryStep(rawValue: number) {
            self = step
            return
        }
        guard let step = DeliveryStep.allCases.first(where: { $0.name == name }) else { return nil }
        self = step
    }

    /// Progress through the delivery: step n of 7 is n/7.
    public var progress: Double { Double(rawValue) / Double(DeliveryStep.allCases.count) }

    /// Stops the courier makes before this customer at this step.
    public var stopsRemaining: Int {
        switch self {
        case .placed, .confirmed, .preparing, .pickedUp: 3
        case .onTheWay: 2
        case .nearby, .delivered: 0
        }
    }

    /// Minutes from the event to the expected arrival.
    public var minutesToArrival: Int {
        switch self {
        case .placed: 45
        case .confirmed: 40
        case .preparing: 30
        case .pickedUp: 20
        case .onTheWay: 12
        case .nearby: 3
        case .delivered: 0
        }
    }

    /// True for the last step, which ends the delivery.
    public var isTerminal: Bool { self == .delivered }

    /// The next step, or nil after "delivered".
    public var next: DeliveryStep? { DeliveryStep(rawValue: rawValue + 1) }

    /// The content state this step shows, given the courier and when the step happened.
    public func contentState(courierName: String, riderReassigned: Bool, at time: Date)
        -> DeliveryAttributes.ContentState
    {
        DeliveryAttributes.ContentState(
            status: status, progress: progress, eta: time.addingTimeInterval(TimeInterval(minutesToArrival * 60)),
            stopsRemaining: stopsRemaining, courierName: courierName, riderReassigned: riderReassigned)
    }
}
