// The simulated Android phone's rules: FCM's priority demotion, the app's notifier and the system's
// promotion and chip rules, as pure functions of the phone's state.
import DropTrackContract
import DropTrackCore
import DropTrackWire
import Foundation
import Synchronization

extension AndroidLiveUpdatePhone {
    /// FCM's side of a delivery: a high-priority message is demoted to normal once too many
    /// high-priority messages showed nothing in the window (DT-113); then the app's side.
    static func deliver(_ state: inout State, data: [String: String], priority: String, now: Date)
        -> LiveUpdateNotification?
    {
        let activityId = data[DeliveryLiveUpdate.Key.activityId].flatMap { $0.isEmpty ? nil : $0 }
        let settings = state.settings
        state.invisibleHighPriority.removeAll { now.timeIntervalSince($0) >= settings.deprioritizationWindowSeconds }
        let invisible = state.invisibleHighPriority.count
        let demoted = priority == "high" && invisible >= settings.deprioritizeAfterInvisibleHighPriority
        let delivered = demoted ? "normal" : priority
        state.priorities.append(
            AndroidMessagePriority(activityId: activityId, original: priority, delivered: delivered))
        if demoted {
            state.findings.append(
                AndroidDrop(
                    at: now, activityId: activityId, trap: "DT-113",
                    reason:
                        "sent as high priority, delivered as normal: \(invisible) high-priority messages showed nothing in the last \(Int(settings.deprioritizationWindowSeconds / 3600)) h, so FCM demoted this one (in Doze it now waits for a maintenance window)"
                ))
        }
        let wasShown = activityId.map { state.notifications[$0] != nil } ?? false
        let shown = show(&state, data: data, sentPriority: priority, now: now)
        // FCM judges by what the server asked for, so a demoted message that shows nothing still counts.
        if priority == "high" && (shown == nil || (wasShown && !settings.updatesCountAsVisible)) {
            state.invisibleHighPriority.append(now)
        }
        return shown
    }

    /// The app and the system: what `DroptrackFcmService` and NotificationManager make of one message.
    static func show(_ state: inout State, data: [String: String], sentPriority: String, now: Date)
        -> LiveUpdateNotification?
    {
        state.received += 1
        func drop(_ reason: String, trap: String? = nil, activity: String? = nil) -> LiveUpdateNotification? {
            state.drops.append(AndroidDrop(at: now, activityId: activity, trap: trap, reason: reason))
            return nil
        }
        guard let activityId = data[DeliveryLiveUpdate.Key.activityId], !activityId.isEmpty else {
            return drop("the message has no activityId, so the service ignores it", trap: "DT-092")
        }
        if state.settings.appChecksContract, let refusal = contractRefusal(data) {
            return drop(refusal, trap: "DT-090", activity: activityId)
        }
        guard !state.dismissedByUser.contains(activityId) else {
            return drop(
                "the user dismissed this Live Update and the server keeps updating; it is not shown again",
                trap: "DT-115", activity: activityId)
        }
        guard state.settings.notificationPermissionGranted else {
            return drop(
                "POST_NOTIFICATIONS is not granted: notify() shows nothing", trap: "DT-106", activity: activityId)
        }
        guard state.settings.channelImportance > .none else {
            return drop(
                "the notification channel is blocked (importance NONE)", trap: "DT-107", activity: activityId)
        }
        let sequence = Int64(data[DeliveryLiveUpdate.Key.sequence] ?? "") ?? 0
        let existing = state.notifications[activityId]
        if let existing, sequence < existing.sequence {
            if state.settings.appChecksSequence {
                return drop(
                    "sequence \(sequence) is older than \(existing.sequence), which is shown", trap: "DT-097",
                    activity: activityId)
            }
            state.findings.append(
                AndroidDrop(
                    at: now, activityId: activityId, trap: "DT-097",
                    reason: "sequence \(sequence) overwrote the newer \(existing.sequence): FCM does not keep order"
                ))
        }
        var notification = build(data: data, activityId: activityId, now: now)
        let completed = notification.progressStyle.map { $0.shownProgress == $0.max } ?? false
        if existing != nil {
            // The system sheds updates faster than the limit, except those that complete the progress.
            state.recentUpdates.removeAll { now.timeIntervalSince($0) >= 1 }
            if !completed && state.recentUpdates.count >= state.settings.maxUpdatesPerSecond {
                return drop(
                    "update shed: more than \(state.settings.maxUpdatesPerSecond) per second for this app; the card keeps the previous state",
                    trap: "DT-112", activity: activityId)
            }
            state.recentUpdates.append(now)
        } else if state.notifications.count >= state.settings.maxNotifications {
            return drop(
                "the app already shows \(state.settings.maxNotifications) notifications; new ones are refused",
                trap: "DT-057", activity: activityId)
        }
        notification = evaluated(notification, in: state, now: now)
        if existing == nil { state.order.append(activityId) }
        state.notifications[activityId] = notification
        recordNotPromoted(notification, in: &state, now: now)
        if state.demotedByUser.contains(activityId) {
            state.findings.append(
                AndroidDrop(
                    at: now, activityId: activityId, trap: "DT-115",
                    reason:
                        "the user demoted this Live Update and the server keeps updating; it shows as a plain notification"
                ))
        }
        if sentPriority != "high" {
            state.findings.append(
                AndroidDrop(
                    at: now, activityId: activityId, trap: "DT-094",
                    reason: "normal priority: in Doze this update waits for the next maintenance window"))
        }
        return notification
    }

    static let userDemotedReason = "the user demoted it to a normal notification"

    /// The system's verdict, then the user's demotion, which overrides it.
    static func evaluated(_ notification: LiveUpdateNotification, in state: State, now: Date)
        -> LiveUpdateNotification
    {
        var result = evaluate(notification, settings: state.settings, now: now)
        if state.demotedByUser.contains(notification.tag) {
            result.promoted = false
            result.notPromotedBecause.append(userDemotedReason)
            result.chip = .none
        }
        return result
    }

    /// A DT-111 finding for a Live Update that posted as an ordinary notification. An ended
    /// delivery is meant to stop being ongoing, and the user's demotion is DT-115, so neither counts.
    static func recordNotPromoted(_ notification: LiveUpdateNotification, in state: inout State, now: Date) {
        let reasons = notification.notPromotedBecause.filter { $0 != userDemotedReason }
        guard notification.ongoing, !notification.promoted, !reasons.isEmpty else { return }
        state.findings.append(
            AndroidDrop(
                at: now, activityId: notification.tag, trap: "DT-111",
                reason:
                    "shown as an ordinary notification, not a Live Update (no chip, not pinned): \(reasons.joined(separator: "; "))"
            ))
    }

    /// Why DropTrack's Android library refuses a map, or nil: the same two rules as its
    /// `LiveUpdatePlanner` (`clients/android`), which the `vectors/android-plans` files hold both to.
    static func contractRefusal(_ data: [String: String]) -> String? {
        typealias Key = DeliveryLiveUpdate.Key
        if let version = data[Key.schemaVersion], version != DeliveryLiveUpdate.schemaVersion {
            return
                "'schemaVersion' is '\(version)', not \(DeliveryLiveUpdate.schemaVersion): the server's map is newer than this app"
        }
        if let progress = data[Key.progress], progress.wholeMatch(of: plainDecimal) == nil {
            return "'progress' must be a number written as a string, not '\(progress)'"
        }
        return nil
    }

    /// A decimal as the contract writes numbers: no comma, no hex, no `NaN` or `inf` (which
    /// `Double(_:)` would accept).
    nonisolated(unsafe) static let plainDecimal = try! Regex(#"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?"#)

    /// The handbook's `DeliveryNotifier`, lenient as Kotlin's `toDoubleOrNull() ?: 0` is.
    static func build(data: [String: String], activityId: String, now: Date) -> LiveUpdateNotification {
        typealias Key = DeliveryLiveUpdate.Key
        let event = data[Key.event] ?? "update"
        let progress = Double(data[Key.progress] ?? "") ?? 0
        let etaMillis = Int64(data[Key.etaEpochMillis] ?? "") ?? 0
        let reassigned = data[Key.riderReassigned] == "true"
        let courier = data[Key.courierName] ?? ""
        let nowMillis = Int64(now.timeIntervalSince1970 * 1000)
        // The bar and what remains, as the widget draws them (N of M when the map counts steps).
        let bar = DeliveryWidgetLogic.Bar(
            progress: progress, stopsRemaining: Int(data[Key.stopsRemaining] ?? "") ?? 0,
            step: Int(data[Key.step] ?? ""), stepCount: Int(data[Key.stepCount] ?? ""))
        let style = ProgressStyleModel(
            segments: bar.androidSegmentLengths.map { ProgressStyleModel.Segment(length: $0, color: brandColor) },
            points: bar.points.map { ProgressStyleModel.Point(position: $0, color: nil) },
            progress: bar.lit, trackerIcon: "ic_courier")
        return LiveUpdateNotification(
            id: stableID(activityId), tag: activityId, title: data[Key.status] ?? "",
            text: bar.androidText(courierName: courier, riderReassigned: reassigned),
            subText: "Order #\(data[Key.orderId] ?? "")", ongoing: event != "end", onlyAlertOnce: true,
            color: brandColor,
            colorized: false, shortCriticalText: bar.progressText,
            requestPromotedOngoing: true, whenMillis: etaMillis > nowMillis ? etaMillis : nil,
            showWhen: etaMillis > nowMillis,
            usesChronometer: false, style: "progress", progressStyle: style, isGroupSummary: false,
            hasCustomView: false,
            sequence: Int64(data[Key.sequence] ?? "") ?? 0, event: event, promoted: false, notPromotedBecause: [],
            chip: .none, staleAfterDeletedMessages: false)
    }

    /// The id the notifier uses for an activity: FNV-1a of its id, so it is the same on every run
    /// (unlike Swift's seeded hashing) and updates replace the notification in place.
    public static func stableID(_ activityId: String) -> Int32 {
        var hash: UInt32 = 2_166_136_261
        for byte in activityId.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int32(bitPattern: hash & 0x7FFF_FFFF)
    }

    static let promotableStyles: Set<String> = ["none", "bigText", "call", "progress", "metric"]

    /// `hasPromotableCharacteristics()` and NotificationManagerService's checks, with every
    /// failing rule listed, then the chip by its precedence.
    public static func evaluate(
        _ notification: LiveUpdateNotification, settings: AndroidDeviceSettings, now: Date
    ) -> LiveUpdateNotification {
        var result = notification
        var reasons: [String] = []
        if !notification.requestPromotedOngoing {
            reasons.append("promotion was not requested (setRequestPromotedOngoing(true))")
        }
        if !notification.ongoing { reasons.append("not ongoing (the delivery ended)") }
        if notification.title.trimmingCharacters(in: .whitespaces).isEmpty { reasons.append("no title") }
        if notification.isGroupSummary { reasons.append("it is a group summary") }
        if notification.hasCustomView { reasons.append("it uses custom RemoteViews") }
        let styleAllowed = promotableStyles.contains(notification.style)
        switch settings.promotionRule {
        case .current:
            if !styleAllowed { reasons.append("the \(notification.style) style cannot be promoted") }
            if notification.colorized { reasons.append("it is colorized (setColorized(true) prevents promotion)") }
        case .android16Release:
            let call = notification.style == "call"
            if !call && !(notification.colorized && styleAllowed) {
                reasons.append(
                    "Android 16.0 promotes only colorized notifications with a promotable style (or CallStyle)")
            }
        }
        if !settings.promotedPermissionGranted {
            reasons.append(
                "POST_PROMOTED_NOTIFICATIONS is missing or revoked (canPostPromotedNotifications() is false)")
        }
        if settings.channelImportance <= .min { reasons.append("the channel importance is MIN") }
        if !settings.userAllowsLiveUpdates { reasons.append("the user turned Live Updates off for this app") }
        result.promoted = reasons.isEmpty
        result.notPromotedBecause = reasons
        result.chip = chip(for: result, settings: settings, now: now)
        return result
    }

    /// The status-bar chip: short critical text, then chronometer, then a `when` at least 60 s
    /// ahead, else the icon. None unless promoted, and none while the app is on screen.
    static func chip(for notification: LiveUpdateNotification, settings: AndroidDeviceSettings, now: Date)
        -> LiveUpdateChip
    {
        guard notification.promoted, !settings.appVisible else { return .none }
        if let text = notification.shortCriticalText, !text.isEmpty { return .text(text) }
        if notification.usesChronometer { return .timer }
        if notification.showWhen, let when = notification.whenMillis {
            let seconds = Double(when) / 1000 - now.timeIntervalSince1970
            if seconds >= AndroidLiveUpdateLimits.chipTimeLeadSeconds {
                return .time("in \(Int(saturating: (seconds / 60).rounded(.up))) min")
            }
        }
        return .iconOnly
    }
}
