import DropTrackContract
import DropTrackLive
import Foundation

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

/// JavaScript's `DeliveryState` (src/DropTrack.types.ts) to and from the contract's content state.
/// JavaScript gives the ETA as `etaEpochMillis`, Unix milliseconds, where the contract has a `Date`.
enum DeliveryStateConversion {
    /// Unix milliseconds before this (1973-03-03) are seconds given by mistake, as src/DeliveryState.ts
    /// also refuses: read as milliseconds they would show an arrival decades away.
    static let smallestPlausibleEpochMillis = 1e11

    /// The content state a JavaScript `DeliveryState` stands for.
    ///
    /// - Throws: `DropTrackExpoError` naming the missing or mistyped field and the fix.
    static func contentState(_ state: [String: Any]) throws -> DeliveryAttributes.ContentState {
        guard let eta = state["etaEpochMillis"].flatMap(number) else {
            throw DropTrackExpoError(
                field: "etaEpochMillis", "'etaEpochMillis' must be a whole number of Unix milliseconds (Date.now() + …)"
            )
        }
        guard eta.isFinite, eta == eta.rounded() else {
            throw DropTrackExpoError(
                field: "etaEpochMillis", "'etaEpochMillis' must be a whole number of Unix milliseconds")
        }
        guard eta >= smallestPlausibleEpochMillis else {
            throw DropTrackExpoError(
                field: "etaEpochMillis",
                "'etaEpochMillis' is \(Int64(exactly: eta).map(String.init) ?? "\(eta)"), which reads as 1973 or earlier: it looks like seconds; multiply by 1000"
            )
        }
        // The contract's own reader checks the remaining fields and names the one at fault.
        do {
            let json = try JSONSerialization.data(withJSONObject: jsonCompatible(state))
            return try DeliveryAttributes.ContentState.fromFlexibleJSON(json)
        } catch let error as ContentStateInputError {
            throw DropTrackExpoError(field: error.field, error.message)
        } catch {
            throw DropTrackExpoError("the delivery state is not a plain object of strings, numbers and booleans")
        }
    }

    /// The JavaScript `DeliveryState` of a content state.
    static func javaScript(_ state: DeliveryAttributes.ContentState) -> [String: any Sendable] {
        [
            "status": state.status, "progress": state.progress,
            "etaEpochMillis": (state.eta.timeIntervalSince1970 * 1000).rounded(),
            "stopsRemaining": Double(state.stopsRemaining), "courierName": state.courierName,
            "riderReassigned": state.riderReassigned,
        ]
    }

    /// The JavaScript `RunningActivity` of an activity on the phone.
    @available(iOS 16.2, *)
    static func runningActivity(_ activity: Activity<DeliveryAttributes>) -> [String: any Sendable] {
        [
            "activityId": activity.attributes.orderId, "localId": activity.id,
            "state": stateName(activity.activityState), "contentState": javaScript(activity.content.state),
        ]
    }

    /// The state's name in JavaScript's `RunningActivity`: DropTrackLive's phase names, so iOS 26's
    /// `.pending` (a scheduled start) is "pending" here as it is to the sync.
    @available(iOS 16.2, *)
    static func stateName(_ state: ActivityState) -> String { LiveActivityPhase(state).rawValue }

    /// A JavaScript number as Expo bridges it (a `Double`, an `Int`, or an `NSNumber`).
    private static func number(_ value: Any) -> Double? {
        if let double = value as? Double { return double }
        if let integer = value as? Int { return Double(integer) }
        return nil
    }

    /// Drops values JSON cannot hold (JavaScript's undefined arrives as `NSNull` or nil), so the contract's
    /// reader reports the field as missing rather than the whole object as unreadable.
    private static func jsonCompatible(_ state: [String: Any]) -> [String: Any] {
        state.filter { _, value in value is String || value is Bool || number(value) != nil }
    }
}
