import Foundation

// A button in a Live Activity runs an App Intent (`DeliveryActionIntent`) that iOS performs in the
// app's process, launching the app in the background if it is not running. The system creates the
// intent itself, so it cannot be handed the app's `LiveActivitySync`: the app registers the sync here
// at launch, and the intent finds it.

/// Where a Live Activity's button sends its press: the app registers its sync at launch.
///
/// It holds the syncs weakly (the app keeps its sync, as it must for the sync to work at all). On a
/// phone there is one; where several share a process (the demo's and the tests' simulated phones),
/// a press goes through the newest one whose phone shows the activity.
@available(iOS 16.0, *)
public enum LiveActivityActions {
    private static let registered = RegisteredSyncs()

    /// Makes `sync` the one presses go through. Call it at launch, before the first activity can be
    /// shown, next to `sync.start()`.
    public static func register(_ sync: LiveActivitySync) { registered.add(sync) }

    /// Sends a press of `action` on the server activity `activityID` through the registered sync: the
    /// server records it, applies the event the action stands for, and pushes the next content-state.
    /// Throws `DeviceAPIError` with code `no_sync` when the app registered none.
    public static func press(_ action: String, activityID: String) async throws(DeviceAPIError) {
        let syncs = registered.newestFirst()
        guard var chosen = syncs.first else {
            throw DeviceAPIError(
                status: nil, code: "no_sync",
                message:
                    "no LiveActivitySync is registered for the Live Activity's buttons; call LiveActivityActions.register(sync) at launch and keep the sync"
            )
        }
        for sync in syncs where await sync.shows(activityID) {
            chosen = sync
            break
        }
        try await chosen.press(action, activityID: activityID)
    }
}

/// The registered syncs, weakly, behind a lock: an intent may run on any thread.
@available(iOS 16.0, *)
private final class RegisteredSyncs: @unchecked Sendable {
    private struct Entry {
        weak var sync: LiveActivitySync?
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    func add(_ sync: LiveActivitySync) {
        lock.withLock {
            entries.removeAll { $0.sync == nil || $0.sync === sync }
            entries.append(Entry(sync: sync))
        }
    }

    func newestFirst() -> [LiveActivitySync] { lock.withLock { entries.reversed().compactMap(\.sync) } }
}

@available(iOS 16.0, *)
extension LiveActivitySync {
    /// Sends a press of a Live Activity's button to the server with the device credential (a fresh one
    /// once after a 401). Not queued: the person is looking at the card, so a failure is thrown for the
    /// intent to report, and a press is never sent late.
    public func press(_ action: String, activityID: String) async throws(DeviceAPIError) {
        let press = ActionPress(activityID: activityID, deviceID: configuration.deviceID, action: action)
        let api = self.api
        try await call("press '\(action)' on \(activityID)") { () throws(DeviceAPIError) in
            try await api.pressAction(press)
        }
        emit(.actionPressed(press))
    }

    /// Whether the phone runs an activity of the server's id `activityID`.
    func shows(_ activityID: String) async -> Bool {
        await host.runningActivities().contains { $0.serverActivityID == activityID }
    }
}
