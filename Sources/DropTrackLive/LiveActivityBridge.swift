import Foundation

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

/// The app's few calls to ActivityKit for one attributes type, in the handbook's shape: start with a
/// push token, update with a timestamp, end with a dismissal time.
@available(iOS 16.2, *)
public struct LiveActivityBridge<Attributes: ActivityAttributes>: Sendable {
    public typealias State = Attributes.ContentState

    public init(_ attributes: Attributes.Type = Attributes.self) {}

    /// Whether this OS has Live Activities at all (iOS 16.1+; the package needs 16.2, so where this
    /// compiles it is true unless the person turned them off, see `areActivitiesEnabled`).
    public var isSupported: Bool { true }

    /// Settings › the app › Live Activities.
    public var areActivitiesEnabled: Bool { ActivityAuthorizationInfo().areActivitiesEnabled }

    /// The activities of this type the phone has (not dismissed).
    public var runningActivities: [Activity<Attributes>] { Activity<Attributes>.activities }

    /// Starts an activity that gets an update token (`pushType: .token`), which `LiveActivitySync`
    /// registers with the server.
    public func start(
        attributes: Attributes, state: State, staleDate: Date? = nil, relevanceScore: Double = 0
    ) throws -> Activity<Attributes> {
        try Activity.request(
            attributes: attributes,
            content: ActivityContent(state: state, staleDate: staleDate, relevanceScore: relevanceScore),
            pushType: .token)
    }

    /// Updates an activity from the app. Local updates carry a timestamp (DT-081): ActivityKit orders
    /// them with the server's pushes, so a push stamped earlier than a local update is ignored and a
    /// local update older than a push is too. Before iOS 17.2 there is no timestamped local update.
    public func update(
        _ activity: Activity<Attributes>, state: State, staleDate: Date? = nil,
        alert: AlertConfiguration? = nil, timestamp: Date = Date()
    ) async {
        let content = ActivityContent(state: state, staleDate: staleDate)
        if #available(iOS 17.2, *) {
            await activity.update(content, alertConfiguration: alert, timestamp: timestamp)
        } else {
            await activity.update(content, alertConfiguration: alert)
        }
    }

    /// Ends an activity: nil `dismissAfter` keeps it on the Lock Screen as long as iOS allows (up to
    /// four hours), 0 removes it at once, otherwise it leaves after that many seconds.
    public func end(
        _ activity: Activity<Attributes>, finalState: State? = nil, dismissAfter: TimeInterval? = nil,
        timestamp: Date = Date()
    ) async {
        let content = finalState.map { ActivityContent(state: $0, staleDate: nil) }
        let policy: ActivityUIDismissalPolicy =
            switch dismissAfter {
            case nil: .default
            case let seconds? where seconds <= 0: .immediate
            case let seconds?: .after(timestamp.addingTimeInterval(seconds))
            }
        if #available(iOS 17.2, *) {
            await activity.end(content, dismissalPolicy: policy, timestamp: timestamp)
        } else {
            await activity.end(content, dismissalPolicy: policy)
        }
    }
}
