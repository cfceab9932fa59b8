import DropTrackContract
import DropTrackCore
import DropTrackWire
import Foundation
import Synchronization

/// A simulated Android 16 phone running the handbook's `DroptrackFcmService` and
/// `DeliveryNotifier`: it turns FCM data messages into promoted `ProgressStyle` notifications,
/// and applies the system's rules (promotion, chip, update shedding, the 50-notification cap).
/// FCM's side that only a device sees is modelled here too, so the catalog's device-only traps
/// can be observed: priority demotion (DT-113), the offline store and `onDeletedMessages`
/// (DT-114), and the user's dismissal or demotion (DT-115).
public final class AndroidLiveUpdatePhone: Sendable {
    /// The brand colour the notifier sets.
    public static let brandColor = "#FF5A1F"

    struct State {
        var settings: AndroidDeviceSettings
        var notifications: [String: LiveUpdateNotification] = [:]
        var order: [String] = []
        var drops: [AndroidDrop] = []
        var findings: [AndroidDrop] = []
        var recentUpdates: [Date] = []
        var received = 0
        /// When high-priority messages led to no visible notification, for FCM's demotion.
        var invisibleHighPriority: [Date] = []
        var priorities: [AndroidMessagePriority] = []
        var online = true
        var pending: [PendingMessage] = []
        /// Messages FCM discarded while the phone was offline, not yet reported by `onDeletedMessages`.
        var discarded = 0
        var dismissedByUser: Set<String> = []
        var demotedByUser: Set<String> = []
    }

    struct PendingMessage {
        var data: [String: String]
        var priority: String
    }

    private let clock: any WallClock
    private let state: Mutex<State>

    /// Creates a phone.
    public init(settings: AndroidDeviceSettings = AndroidDeviceSettings(), clock: any WallClock = SystemWallClock()) {
        self.clock = clock
        state = Mutex(State(settings: settings))
    }

    /// The settings in force.
    public var settings: AndroidDeviceSettings {
        get { state.withLock { $0.settings } }
    }

    /// Changes settings (the user flips a switch); shown notifications are re-evaluated, and one
    /// that loses its promotion is recorded as a DT-111 finding.
    public func updateSettings(_ change: (inout AndroidDeviceSettings) -> Void) {
        let now = clock.now()
        state.withLock { state in
            change(&state.settings)
            for key in state.order {
                guard let before = state.notifications[key] else { continue }
                let after = AndroidLiveUpdatePhone.evaluated(before, in: state, now: now)
                state.notifications[key] = after
                if before.promoted && !after.promoted {
                    AndroidLiveUpdatePhone.recordNotPromoted(after, in: &state, now: now)
                }
            }
        }
    }

    /// Notifications shown now, in the order they were first posted.
    public var notifications: [LiveUpdateNotification] {
        state.withLock { state in state.order.compactMap { state.notifications[$0] } }
    }

    /// The notification for an activity.
    public func notification(forActivity id: String) -> LiveUpdateNotification? {
        state.withLock { $0.notifications[id] }
    }

    /// Messages dropped, with reasons.
    public var drops: [AndroidDrop] { state.withLock { $0.drops } }

    /// Messages shown that hit a trap anyway: an older update overwriting a newer one, a
    /// notification that is not promoted, a demoted priority.
    public var findings: [AndroidDrop] { state.withLock { $0.findings } }

    /// Data messages delivered to the app (messages waiting while the phone is offline are not).
    public var received: Int { state.withLock { $0.received } }

    /// The original and delivered priority of every message delivered to the app, in order.
    public var priorities: [AndroidMessagePriority] { state.withLock { $0.priorities } }

    /// False while the phone is offline and FCM stores its messages.
    public var isOnline: Bool { state.withLock { $0.online } }

    /// Messages FCM holds for the phone while it is offline.
    public var pendingMessages: Int { state.withLock { $0.pending.count } }

    /// Activities whose Live Update the user swiped away.
    public var dismissedActivities: Set<String> { state.withLock { $0.dismissedByUser } }

    /// The user swipes the Live Update away. The app hears nothing unless it set a delete intent,
    /// so the server keeps sending, and the app does not post this activity again (DT-115).
    /// Returns false when there is nothing to dismiss, or the device is locked and the
    /// notification is ongoing (Android 14+ allows dismissing ongoing notifications only unlocked).
    @discardableResult
    public func userDismiss(activityId: String) -> Bool {
        state.withLock { state in
            guard let shown = state.notifications[activityId] else { return false }
            if shown.ongoing && state.settings.deviceLocked { return false }
            state.notifications[activityId] = nil
            state.order.removeAll { $0 == activityId }
            state.dismissedByUser.insert(activityId)
            return true
        }
    }

    /// The user demotes the Live Update to a normal notification: it stays, without the chip or
    /// the pinned card, and later updates stay demoted (DT-115).
    @discardableResult
    public func userDemote(activityId: String) -> Bool {
        let now = clock.now()
        return state.withLock { state in
            guard let shown = state.notifications[activityId] else { return false }
            state.demotedByUser.insert(activityId)
            state.notifications[activityId] = AndroidLiveUpdatePhone.evaluated(shown, in: state, now: now)
            return true
        }
    }

    /// A fresh start for a demo (its Reset): no notifications, drops, findings or stored messages, and
    /// nothing remembered of what the user swiped away or demoted. Settings and the connection stay.
    public func reset() {
        state.withLock { state in
            var fresh = State(settings: state.settings)
            fresh.online = state.online
            state = fresh
        }
    }

    /// The phone loses its connection: FCM stores messages for it until it comes back.
    public func goOffline() {
        state.withLock { $0.online = false }
    }

    /// The phone reconnects. If FCM discarded the backlog, the app's `onDeletedMessages` runs
    /// first: each notification keeps its old state until a message reaches it (DT-114). Then
    /// the stored messages arrive in order.
    public func goOnline() {
        let now = clock.now()
        state.withLock { state in
            guard !state.online else { return }
            state.online = true
            if state.discarded > 0 {
                let count = state.discarded
                state.discarded = 0
                let heard =
                    "FCM discarded \(count) messages stored while the phone was offline (more than \(state.settings.maxPendingMessages)) and called onDeletedMessages"
                if state.order.isEmpty {
                    state.drops.append(AndroidDrop(at: now, activityId: nil, trap: "DT-114", reason: heard))
                }
                for id in state.order {
                    guard var shown = state.notifications[id] else { continue }
                    shown.staleAfterDeletedMessages = true
                    state.notifications[id] = shown
                    state.drops.append(
                        AndroidDrop(
                            at: now, activityId: id, trap: "DT-114",
                            reason:
                                "\(heard); the card still shows '\(shown.title)' (sequence \(shown.sequence)) until the next message or a resync"
                        ))
                }
            }
            let pending = state.pending
            state.pending = []
            for message in pending {
                _ = AndroidLiveUpdatePhone.deliver(&state, data: message.data, priority: message.priority, now: now)
            }
        }
    }

    /// `onMessageReceived`: what FCM, the app and the system do with one data message sent with
    /// `priority` (`high` or `normal`). While the phone is offline FCM stores it instead, and
    /// discards the whole store when it grows past `maxPendingMessages`.
    @discardableResult
    public func receive(data: [String: String], priority: String = "high") -> LiveUpdateNotification? {
        let now = clock.now()
        return state.withLock { state -> LiveUpdateNotification? in
            guard state.online else {
                state.pending.append(PendingMessage(data: data, priority: priority))
                if state.pending.count > state.settings.maxPendingMessages {
                    state.discarded += state.pending.count
                    state.pending = []
                }
                return nil
            }
            return AndroidLiveUpdatePhone.deliver(&state, data: data, priority: priority, now: now)
        }
    }

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
        let steps = DeliveryStep.allCases.count
        let style = ProgressStyleModel(
            segments: (0..<steps).map { _ in ProgressStyleModel.Segment(length: 1, color: brandColor) },
            points: [DeliveryStep.pickedUp, .nearby].map {
                ProgressStyleModel.Point(position: $0.rawValue, color: nil)
            },
            progress: DeliveryWidgetLogic.litSegments(progress: progress), trackerIcon: "ic_courier")
        return LiveUpdateNotification(
            id: stableID(activityId), tag: activityId, title: data[Key.status] ?? "",
            text: DeliveryWidgetLogic.courierLabel(courierName: courier, riderReassigned: reassigned, compact: false),
            subText: "Order #\(data[Key.orderId] ?? "")", ongoing: event != "end", onlyAlertOnce: true,
            color: brandColor,
            colorized: false, shortCriticalText: DeliveryWidgetLogic.percentText(progress: progress),
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
                return .time("in \(Int((seconds / 60).rounded(.up))) min")
            }
        }
        return .iconOnly
    }
}
