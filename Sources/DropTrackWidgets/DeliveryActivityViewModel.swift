import DropTrackContract
import DropTrackLive
import Foundation

/// Everything the delivery Live Activity shows, worked out from the contract's state by
/// `DeliveryWidgetLogic`: plain values, so it is tested without a SwiftUI runtime and the views
/// below only lay them out.
public struct DeliveryActivityViewModel: Equatable, Sendable {
    /// The card's headline, e.g. "Out for delivery".
    public var status: String
    /// "Order 4711".
    public var orderLabel: String
    /// "Sam is delivering your order" or "New courier: Sam".
    public var courierLine: String
    /// "Sam" or "Sam (new)", for the Dynamic Island.
    public var courierCompact: String
    /// What remains: "You're next", "1 stop away", "N stops away", "Enjoy your order" once
    /// delivered; "9 to go" or "All done" for a state counting its own steps.
    public var stopsLine: String
    /// "43%", or "3 of 12" for a state counting its own steps.
    public var percentText: String
    /// The ETA: a countdown the phone runs by itself between updates, or "Arrived" once delivered.
    public var etaDisplay: DeliveryWidgetLogic.ETADisplay
    /// Progress clamped to 0…1, for `ProgressView`.
    public var progress: Double
    /// How many of `segmentCount` segments are lit.
    public var litSegments: Int
    /// One segment per step: the state's `stepCount`, else the delivery's seven.
    public var segmentCount: Int
    /// The ETA, for a `Text(_:style: .time)` arrival time.
    public var eta: Date
    /// The activity's content is out of date (no update reached the phone in time).
    public var isStale: Bool
    /// The SF Symbol for the compact and minimal presentations.
    public var symbolName: String
    /// The server's activity id, which the card's button sends its press for.
    public var activityID: String
    /// The button the card shows at this step (iOS 17 and later), if any.
    public var action: DeliveryAction?

    /// Works out what to show for `state` at `now`.
    public init(attributes: DeliveryAttributes, state: DeliveryAttributes.ContentState, isStale: Bool, now: Date) {
        status = state.status
        orderLabel = "Order \(attributes.orderId)"
        courierLine = DeliveryWidgetLogic.courierLabel(
            courierName: state.courierName, riderReassigned: state.riderReassigned, compact: false)
        courierCompact = DeliveryWidgetLogic.courierLabel(
            courierName: state.courierName, riderReassigned: state.riderReassigned, compact: true)
        let bar = DeliveryWidgetLogic.Bar(state)
        stopsLine = bar.remainingText
        percentText = bar.progressText
        etaDisplay = DeliveryWidgetLogic.etaDisplay(eta: state.eta, now: now, progress: state.progress)
        progress = state.progress.isFinite ? min(max(state.progress, 0), 1) : 0
        litSegments = bar.lit
        segmentCount = bar.segmentCount
        eta = state.eta
        self.isStale = isStale
        symbolName = DeliveryWidgetLogic.isDelivered(progress: progress) ? "checkmark.circle.fill" : "box.truck.fill"
        activityID = attributes.dropTrackActivityID
        action = DeliveryAction.offered(status: state.status)
    }

    /// Whether segment `index` (0-based) is lit.
    public func isLit(segment index: Int) -> Bool { index < litSegments }
}
