import Foundation

/// N-of-M progress: a state may say how many steps there are (`stepCount`, "of 12") and how many are
/// done (`step`, "3"). Without them the bar is the delivery's seven steps, lit from `progress`. The
/// widget, the Android planner (`LiveUpdatePlanner.kt`), both phone models and the dashboard draw it
/// from this one rule, held together by `vectors/progress/`.
extension DeliveryWidgetLogic {
    /// The progress bar for one state, and the lines that go with it.
    public struct Bar: Equatable, Sendable {
        /// Segments drawn: `stepCount` (at most `maximumStepCount`), else the delivery's seven.
        public var segmentCount: Int
        /// Segments lit: `step` (clamped to the bar), else from `progress`.
        public var lit: Int
        /// True when the state counts its own steps (N of M) rather than the delivery's.
        public var countsSteps: Bool
        /// "3 of 12" when the state counts steps, else "71%".
        public var progressText: String
        /// What remains: "9 to go" or "All done" for N of M; "2 stops away", "You're next" or
        /// "Enjoy your order" for a delivery.
        public var remainingText: String

        /// The bar for a state's values (as the content-state or the Android map carries them).
        public init(progress: Double, stopsRemaining: Int, step: Int?, stepCount: Int?) {
            if let stepCount, stepCount >= 1 {
                let count = min(stepCount, DeliveryWidgetLogic.maximumStepCount)
                let done = step.map { min(max($0, 0), count) } ?? litSegments(progress: progress, of: count)
                segmentCount = count
                lit = done
                countsSteps = true
                progressText = "\(done) of \(count)"
                remainingText = done >= count ? "All done" : "\(count - done) to go"
            } else {
                segmentCount = DeliveryWidgetLogic.segmentCount
                lit = litSegments(progress: progress)
                countsSteps = false
                progressText = percentText(progress: progress)
                remainingText = stopsLabel(stopsRemaining: stopsRemaining, progress: progress)
            }
        }

        /// The bar for a content-state.
        public init(_ state: DeliveryAttributes.ContentState) {
            self.init(
                progress: state.progress, stopsRemaining: state.stopsRemaining, step: state.step,
                stepCount: state.stepCount)
        }

        /// Points on the bar at step boundaries: "picked up" and "almost there" for a delivery, none
        /// for N of M (whose steps the server does not name).
        public var points: [Int] { countsSteps ? [] : [DeliveryStep.pickedUp.rawValue, DeliveryStep.nearby.rawValue] }

        /// The segment lengths an Android `ProgressStyle` is given: one per step up to the
        /// platform's ten, else one segment as long as the steps (Android would merge them anyway,
        /// and the lit length still reads N of M).
        public var androidSegmentLengths: [Int] {
            segmentCount <= DeliveryWidgetLogic.androidMaximumSegments
                ? Array(repeating: 1, count: segmentCount) : [segmentCount]
        }

        /// The Android card's text line: the courier, then what remains.
        public func androidText(courierName: String, riderReassigned: Bool) -> String {
            courierLabel(courierName: courierName, riderReassigned: riderReassigned, compact: false) + " · "
                + remainingText
        }
    }

    /// The most segments Android's `ProgressStyle` draws apart (it merges more into one bar); the
    /// doctor and the Android phone model read it as `AndroidLiveUpdateLimits.maximumSegments`.
    public static let androidMaximumSegments = 10

    /// Why `step` or `stepCount` is out of range, naming the key, or nil when they fit: `stepCount`
    /// is 1 to `maximumStepCount`, `step` is 0 to `stepCount` and needs it.
    public static func stepProblem(step: Int?, stepCount: Int?) -> (key: String, message: String)? {
        if let stepCount, !(1...maximumStepCount).contains(stepCount) {
            return (
                "stepCount",
                "'stepCount' is \(stepCount); the bar has 1 to \(maximumStepCount) segments (leave it out for the delivery's 7)"
            )
        }
        guard let step else { return nil }
        guard let stepCount else {
            return ("step", "'step' is \(step) of no 'stepCount'; send 'stepCount' (the M of \"N of M\") with it")
        }
        guard (0...stepCount).contains(step) else {
            return (
                "step", "'step' is \(step) of \(stepCount); it is 0 to 'stepCount', so the bar over-fills or misdraws"
            )
        }
        return nil
    }
}
