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
    public static let brandColor = DeliveryBrand.defaultColor

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
}
