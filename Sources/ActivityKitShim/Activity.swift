import Foundation

/// The object you use to start, update, and end a Live Activity.
///
/// As in ActivityKit it is a class that is neither final nor `Sendable`: hand its `id` across tasks,
/// and look the activity up again (`activities`) where it is used.
@available(iOS 16.1, *)
public class Activity<Attributes>: Identifiable where Attributes: ActivityAttributes {
    /// The dynamic content's type.
    public typealias ContentState = Attributes.ContentState

    /// The Live Activity's unique identifier.
    public final let id: String
    /// The attributes that describe the Live Activity and its static content.
    public final let attributes: Attributes
    /// Where the look-alike keeps what ActivityKit keeps in the system.
    let model: ActivityModel<Attributes>

    init(attributes: Attributes, state: ActivityState, content: ActivityContent<ContentState>) {
        id = UUID().uuidString
        self.attributes = attributes
        model = ActivityModel(state: state, content: content)
    }

    /// Requests and starts a standard Live Activity.
    @available(iOS 16.2, *)
    public static func request(
        attributes: Attributes, content: ActivityContent<Activity<Attributes>.ContentState>, pushType: PushType? = nil
    ) throws -> Activity<Attributes> {
        try start(attributes: attributes, content: content, at: nil)
    }

    /// Requests and starts a Live Activity of the given style.
    @available(iOS 18.0, *)
    public static func request(
        attributes: Attributes, content: ActivityContent<Activity<Attributes>.ContentState>, pushType: PushType? = nil,
        style: ActivityStyle
    ) throws -> Activity<Attributes> {
        try start(attributes: attributes, content: content, at: nil)
    }

    /// Requests a Live Activity that starts at `start`: until then its state is `.pending`.
    @available(iOS 26.0, *)
    public static func request(
        attributes: Attributes, content: ActivityContent<Activity<Attributes>.ContentState>, pushType: PushType? = nil,
        style: ActivityStyle, alertConfiguration: AlertConfiguration, start: Date
    ) throws -> Activity<Attributes> {
        try Self.start(attributes: attributes, content: content, at: start)
    }

    /// The Live Activities of this attributes type that the app started and have not been dismissed.
    public static var activities: [Activity<Attributes>] { Registry<Attributes>.shared.activities }

    /// Observes Live Activities of this type as they start, from the app or by push notification.
    public static var activityUpdates: Activity<Attributes>.ActivityUpdates {
        ActivityUpdates(feed: Registry<Attributes>.shared.started.subscribe())
    }

    /// The Live Activity's state in its life cycle.
    public var activityState: ActivityState { model.state }

    /// Observes this Live Activity's state in its life cycle.
    public var activityStateUpdates: Activity<Attributes>.ActivityStateUpdates {
        ActivityStateUpdates(feed: model.states.subscribe())
    }

    /// The dynamic content of the Live Activity.
    @available(iOS 16.2, *)
    public var content: ActivityContent<Activity<Attributes>.ContentState> { model.content }

    /// Observes this Live Activity's dynamic content.
    @available(iOS 16.2, *)
    public var contentUpdates: Activity<Attributes>.ContentUpdates { ContentUpdates(feed: model.contents.subscribe()) }

    /// The token to send ActivityKit push notifications to this Live Activity.
    public var pushToken: Data? { model.pushToken }

    /// Observes changes to this Live Activity's push token.
    public var pushTokenUpdates: Activity<Attributes>.PushTokenUpdates {
        PushTokenUpdates(feed: model.tokens.subscribe())
    }

    /// Observes changes to the token that starts a Live Activity of this type by push notification.
    @available(iOS 17.2, *)
    public static var pushToStartTokenUpdates: Activity<Attributes>.PushTokenUpdates {
        PushTokenUpdates(feed: Registry<Attributes>.shared.pushToStartTokens.subscribe())
    }

    /// The token that starts a Live Activity of this type by push notification.
    @available(iOS 17.2, *)
    public static var pushToStartToken: Data? { Registry<Attributes>.shared.pushToStartToken }

    /// Updates the dynamic content of a Live Activity.
    @available(iOS 16.2, *)
    public func update(_ content: ActivityContent<Activity<Attributes>.ContentState>) async {
        model.update(content)
    }

    /// Updates the dynamic content of a Live Activity and alerts a person about the update.
    @available(iOS 16.2, *)
    public func update(
        _ content: ActivityContent<Activity<Attributes>.ContentState>, alertConfiguration: AlertConfiguration? = nil
    ) async {
        model.update(content)
    }

    /// Updates the dynamic content, ignored if `timestamp` is older than the last update's.
    @available(iOS 17.2, *)
    public func update(
        _ content: ActivityContent<Activity<Attributes>.ContentState>, alertConfiguration: AlertConfiguration? = nil,
        timestamp: Date
    ) async {
        model.update(content, timestamp: timestamp)
    }

    /// Ends an active Live Activity.
    @available(iOS 16.2, *)
    public func end(
        _ content: ActivityContent<Activity<Attributes>.ContentState>?,
        dismissalPolicy: ActivityUIDismissalPolicy = .default
    ) async {
        finish(content, dismissalPolicy, timestamp: nil)
    }

    /// Ends an active Live Activity, ignored if `timestamp` is older than the last update's.
    @available(iOS 17.2, *)
    public func end(
        _ content: ActivityContent<Activity<Attributes>.ContentState>?,
        dismissalPolicy: ActivityUIDismissalPolicy = .default, timestamp: Date
    ) async {
        finish(content, dismissalPolicy, timestamp: timestamp)
    }

    static func start(
        attributes: Attributes, content: ActivityContent<ContentState>, at start: Date?
    ) throws -> Activity<Attributes> {
        guard ActivityAuthorizationInfo.store.activitiesEnabled else { throw ActivityAuthorizationError.denied }
        let pending = start.map { $0 > Date() } ?? false
        let activity = Activity(attributes: attributes, state: pending ? .pending : .active, content: content)
        Registry<Attributes>.shared.add(activity)
        return activity
    }

    func finish(_ content: ActivityContent<ContentState>?, _ policy: ActivityUIDismissalPolicy, timestamp: Date?) {
        guard let state = model.end(content, dismissImmediately: policy.kind == .immediate, timestamp: timestamp)
        else { return }
        if state == .dismissed { Registry<Attributes>.shared.remove(id) }
    }
}
