import Foundation

/// The widget's pure view logic, shared by the SwiftUI widget, the Android notifier's vectors, the
/// dashboard and the device simulators, so every surface renders a state the same way.
public enum DeliveryWidgetLogic {
    /// The number of segments when the state names none: one per delivery step.
    public static let segmentCount = DeliveryStep.allCases.count

    /// The most segments a state may ask for (`stepCount`); more could not be told apart on a card.
    public static let maximumStepCount = 100

    /// How many of the 7 segments are lit: progress clamped to 0…1, times 7, rounded up.
    /// A tolerance keeps 3/7 from lighting 4 segments through floating-point error; NaN lights none.
    public static func litSegments(progress: Double) -> Int { litSegments(progress: progress, of: segmentCount) }

    /// How many of `count` segments a progress 0…1 lights: a step counts once it has started.
    public static func litSegments(progress: Double, of count: Int) -> Int {
        guard progress.isFinite, progress > 0 else { return 0 }
        let clamped = min(progress, 1)
        let lit = Int((clamped * Double(count) - 1e-9).rounded(.up))
        return min(max(lit, 0), count)
    }

    /// "You're next", "1 stop away" or "N stops away". Negative counts read as "You're next".
    public static func stopsLabel(stopsRemaining: Int) -> String {
        switch stopsRemaining {
        case ...0: "You're next"
        case 1: "1 stop away"
        default: "\(stopsRemaining) stops away"
        }
    }

    /// The courier line. Full: "Sam is delivering your order" or, after a reassignment,
    /// "New courier: Sam". Compact (Dynamic Island): "Sam" or "Sam (new)".
    public static func courierLabel(courierName: String, riderReassigned: Bool, compact: Bool) -> String {
        let name = courierName.trimmingCharacters(in: .whitespaces).isEmpty ? "Your courier" : courierName
        switch (compact, riderReassigned) {
        case (true, false): return name
        case (true, true): return "\(name) (new)"
        case (false, false): return "\(name) is delivering your order"
        case (false, true): return "New courier: \(name)"
        }
    }

    /// Progress as a whole percentage, "0%" to "100%".
    public static func percentText(progress: Double) -> String {
        guard progress.isFinite else { return "0%" }
        let percent = Int((min(max(progress, 0), 1) * 100).rounded())
        return "\(percent)%"
    }

    /// Minutes until the ETA for the compact view, never negative ("0 min" once due).
    public static func minutesText(eta: Date, now: Date) -> String {
        let minutes = max(0, Int(saturating: (eta.timeIntervalSince(now) / 60).rounded(.up)))
        return "\(minutes) min"
    }

    /// Whether the order was handed over: the last step (progress 1) has no minutes or stops left to
    /// count, so the card must not read "0 min · You're next" under "Delivered".
    public static func isDelivered(progress: Double) -> Bool { progress.isFinite && progress >= 1 }

    /// What a Live Activity shows for the ETA. A Live Activity is rendered when an update arrives and
    /// not again until the next one, so a "12 min" worked out at render time stays "12 min"; a countdown
    /// (`Text(timerInterval:countsDown:)`) over the range below keeps counting on the phone. `minutesText`
    /// is for surfaces that are redrawn on their own (the dashboard, a notification re-posted each update).
    public enum ETADisplay: Equatable, Sendable {
        /// Count down to the range's end, the ETA; the range starts at render time, or at the ETA once
        /// it has passed (the countdown then reads zero until the next update).
        case countdown(ClosedRange<Date>)
        /// A fixed line: "Arrived" once delivered, when there is nothing left to count.
        case fixed(String)
    }

    /// The ETA display for a state rendered at `now`.
    public static func etaDisplay(eta: Date, now: Date, progress: Double) -> ETADisplay {
        isDelivered(progress: progress) ? .fixed("Arrived") : .countdown(min(now, eta)...eta)
    }

    /// The minutes line for a state: "Arrived" once delivered, else `minutesText(eta:now:)`.
    public static func minutesText(eta: Date, now: Date, progress: Double) -> String {
        isDelivered(progress: progress) ? "Arrived" : minutesText(eta: eta, now: now)
    }

    /// The stops line for a state: "Enjoy your order" once delivered, else `stopsLabel(stopsRemaining:)`.
    public static func stopsLabel(stopsRemaining: Int, progress: Double) -> String {
        isDelivered(progress: progress) ? "Enjoy your order" : stopsLabel(stopsRemaining: stopsRemaining)
    }
}
