import Foundation

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

/// The push-to-start gap: iOS 17.0 and 17.1 (and 16.x) have no push-to-start token, so the server
/// cannot start an activity on these phones, and `LiveActivityHost.pushToStartTokens()` is empty there.
///
/// The opt-in workaround (off by default): when the app is opened, start a placeholder activity
/// locally (`Activity.request(…, pushType: .token)`), so ActivityKit issues an update token that
/// `LiveActivitySync` registers under the placeholder's server activity id; the backend then updates
/// that activity by push instead of starting one. It only works once the person opened the app, and
/// it shows a card before there is news, so the placeholder's state should say so ("Waiting for your
/// order"). On 17.2+ it does nothing.
@available(iOS 16.2, *)
public struct PlaceholderStart<Attributes: ActivityAttributes & DropTrackIdentifiedAttributes> {
    /// Off unless the app opts in.
    public var isEnabled: Bool

    public init(isEnabled: Bool = false) { self.isEnabled = isEnabled }

    /// Whether this OS lacks push-to-start.
    public static var osLacksPushToStart: Bool {
        if #available(iOS 17.2, *) { return false }
        return true
    }

    /// Whether to start a placeholder now: enabled, no push-to-start on this OS, and no activity for
    /// the same server activity running yet (a relaunch must not start a second card).
    public static func shouldStart(
        isEnabled: Bool, osLacksPushToStart: Bool, serverActivityID: String, running: [String]
    ) -> Bool {
        isEnabled && osLacksPushToStart && !running.contains(serverActivityID)
    }

    /// Starts the placeholder when `shouldStart` says so; returns it, or nil when nothing was started.
    @discardableResult
    public func startIfNeeded(attributes: Attributes, waitingState: Attributes.ContentState) throws -> Activity<
        Attributes
    >? {
        let running = Activity<Attributes>.activities.map(\.attributes.dropTrackActivityID)
        guard
            Self.shouldStart(
                isEnabled: isEnabled, osLacksPushToStart: Self.osLacksPushToStart,
                serverActivityID: attributes.dropTrackActivityID, running: running)
        else { return nil }
        return try LiveActivityBridge<Attributes>().start(attributes: attributes, state: waitingState)
    }
}
