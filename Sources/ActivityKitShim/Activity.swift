import Foundation
import Synchronization

/// The object you use to start, update, and end a Live Activity.
///
/// In the look-alike it is an in-memory model: `request` makes an active activity, `update` and `end`
/// change it, and every asynchronous sequence is a real `AsyncStream` fed by those calls or, for what
/// only the system produces (push tokens), by the `package` hooks in `ActivityKitShim+Simulation.swift`.
@available(iOS 16.1, *)
public final class Activity<Attributes>: Identifiable, @unchecked Sendable where Attributes: ActivityAttributes {
    /// The dynamic content's type.
    public typealias ContentState = Attributes.ContentState

    /// The Live Activity's unique identifier.
    public let id: String
    /// The attributes that describe the Live Activity and its static content.
    public final let attributes: Attributes

    struct Inner {
        var state: ActivityState
        var content: ActivityContent<ContentState>
        var pushToken: Data?
    }
    let inner: Mutex<Inner>
    let tokenUpdates = Broadcast<Data>()
    let stateUpdates = Broadcast<ActivityState>()
    let contentStream = Broadcast<ActivityContent<ContentState>>()

    init(attributes: Attributes, content: ActivityContent<ContentState>) {
        id = UUID().uuidString
        self.attributes = attributes
        inner = Mutex(Inner(state: .active, content: content, pushToken: nil))
    }

    /// The Live Activity's state in its life cycle.
    public var activityState: ActivityState { inner.withLock { $0.state } }

    /// The dynamic content of the Live Activity.
    @available(iOS 16.2, *)
    public var content: ActivityContent<Activity<Attributes>.ContentState> { inner.withLock { $0.content } }

    /// The token to send ActivityKit push notifications to this Live Activity.
    public var pushToken: Data? { inner.withLock { $0.pushToken } }

    /// The Live Activities of this attributes type that the app started and have not been dismissed.
    public static var activities: [Activity<Attributes>] { Registry<Attributes>.shared.activities }

    /// Requests and starts a standard Live Activity.
    @available(iOS 16.2, *)
    public static func request(
        attributes: Attributes, content: ActivityContent<Activity<Attributes>.ContentState>, pushType: PushType? = nil
    ) throws -> Activity<Attributes> {
        guard ActivityAuthorizationInfo().areActivitiesEnabled else { throw ActivityAuthorizationError.denied }
        let activity = Activity(attributes: attributes, content: content)
        Registry<Attributes>.shared.add(activity)
        return activity
    }

    /// Updates the dynamic content of a Live Activity.
    @available(iOS 16.2, *)
    public func update(_ content: ActivityContent<Activity<Attributes>.ContentState>) async {
        await update(content, alertConfiguration: nil)
    }

    /// Updates the dynamic content of a Live Activity and alerts a person about the update.
    @available(iOS 16.2, *)
    public func update(
        _ content: ActivityContent<Activity<Attributes>.ContentState>, alertConfiguration: AlertConfiguration? = nil
    ) async {
        let accepted = inner.withLock { inner -> Bool in
            guard inner.state == .active || inner.state == .stale else { return false }
            inner.content = content
            return true
        }
        if accepted { contentStream.yield(content) }
    }

    /// Updates the dynamic content of a Live Activity, ignored if `timestamp` is older than the last one.
    @available(iOS 17.2, *)
    public func update(
        _ content: ActivityContent<Activity<Attributes>.ContentState>, alertConfiguration: AlertConfiguration? = nil,
        timestamp: Date
    ) async {
        await update(content, alertConfiguration: alertConfiguration)
    }

    /// Ends an active Live Activity.
    @available(iOS 16.2, *)
    public func end(
        _ content: ActivityContent<Activity<Attributes>.ContentState>?,
        dismissalPolicy: ActivityUIDismissalPolicy = .default
    ) async {
        let final = inner.withLock { inner -> ActivityContent<ContentState>? in
            guard inner.state != .ended, inner.state != .dismissed else { return nil }
            if let content { inner.content = content }
            inner.state = dismissalPolicy == .immediate ? .dismissed : .ended
            return inner.content
        }
        guard let final else { return }
        if content != nil { contentStream.yield(final) }
        stateUpdates.yield(activityState)
        if activityState == .dismissed { Registry<Attributes>.shared.remove(self) }
    }

    /// Ends an active Live Activity, ignored if `timestamp` is older than the last update.
    @available(iOS 17.2, *)
    public func end(
        _ content: ActivityContent<Activity<Attributes>.ContentState>?,
        dismissalPolicy: ActivityUIDismissalPolicy = .default, timestamp: Date
    ) async {
        await end(content, dismissalPolicy: dismissalPolicy)
    }

    /// Observes changes to this Live Activity's push token.
    public var pushTokenUpdates: Activity<Attributes>.PushTokenUpdates {
        PushTokenUpdates(stream: tokenUpdates.stream())
    }

    /// Observes changes to the token that starts a Live Activity of this type by push notification.
    @available(iOS 17.2, *)
    public static var pushToStartTokenUpdates: Activity<Attributes>.PushTokenUpdates {
        PushTokenUpdates(stream: Registry<Attributes>.shared.pushToStartTokens.stream())
    }

    /// The token that starts a Live Activity of this type by push notification.
    @available(iOS 17.2, *)
    public static var pushToStartToken: Data? { Registry<Attributes>.shared.pushToStartToken }

    /// Observes Live Activities of this type as they start, from the app or by push notification.
    public static var activityUpdates: Activity<Attributes>.ActivityUpdates {
        ActivityUpdates(stream: Registry<Attributes>.shared.started.stream())
    }

    /// Observes this Live Activity's state in its life cycle.
    public var activityStateUpdates: Activity<Attributes>.ActivityStateUpdates {
        ActivityStateUpdates(stream: stateUpdates.stream())
    }

    /// Observes this Live Activity's dynamic content.
    @available(iOS 16.2, *)
    public var contentUpdates: Activity<Attributes>.ContentUpdates { ContentUpdates(stream: contentStream.stream()) }
}

@available(iOS 16.1, *)
extension Activity {
    /// An asynchronous sequence of push tokens.
    public struct PushTokenUpdates: AsyncSequence {
        public typealias Element = Data
        let stream: AsyncStream<Data>
        public func makeAsyncIterator() -> AsyncStream<Data>.Iterator { stream.makeAsyncIterator() }
    }

    /// An asynchronous sequence of Live Activities that started.
    public struct ActivityUpdates: AsyncSequence {
        public typealias Element = Activity<Attributes>
        let stream: AsyncStream<Activity<Attributes>>
        public func makeAsyncIterator() -> AsyncStream<Activity<Attributes>>.Iterator { stream.makeAsyncIterator() }
    }

    /// An asynchronous sequence of activity states.
    public struct ActivityStateUpdates: AsyncSequence {
        public typealias Element = ActivityState
        let stream: AsyncStream<ActivityState>
        public func makeAsyncIterator() -> AsyncStream<ActivityState>.Iterator { stream.makeAsyncIterator() }
    }

    /// An asynchronous sequence of content updates.
    @available(iOS 16.2, *)
    public struct ContentUpdates: AsyncSequence {
        public typealias Element = ActivityContent<Activity<Attributes>.ContentState>
        let stream: AsyncStream<Element>
        public func makeAsyncIterator() -> AsyncStream<Element>.Iterator { stream.makeAsyncIterator() }
    }
}

/// Whether a person allowed the app to start Live Activities and to update them with frequent pushes.
@available(iOS 16.1, *)
public final class ActivityAuthorizationInfo: Sendable {
    static let settings = Mutex((activitiesEnabled: true, frequentPushesEnabled: false))
    static let enablement = Broadcast<Bool>()
    static let frequentPushEnablement = Broadcast<Bool>()

    /// Creates an object that observes the person's authorizations.
    public init() {}

    /// Whether the app can start a Live Activity.
    public final var areActivitiesEnabled: Bool { Self.settings.withLock { $0.activitiesEnabled } }

    /// Whether the person permitted frequent ActivityKit push notifications.
    @available(iOS 16.2, *)
    public final var frequentPushesEnabled: Bool { Self.settings.withLock { $0.frequentPushesEnabled } }

    /// Observes whether the app can start a Live Activity.
    public final var activityEnablementUpdates: ActivityAuthorizationInfo.ActivityEnablementUpdates {
        ActivityEnablementUpdates(stream: Self.enablement.stream())
    }

    /// Observes whether the person permitted frequent ActivityKit push notifications.
    @available(iOS 16.2, *)
    public final var frequentPushEnablementUpdates: ActivityAuthorizationInfo.FrequentPushEnablementUpdates {
        FrequentPushEnablementUpdates(stream: Self.frequentPushEnablement.stream())
    }

    /// An asynchronous sequence of whether the app can start Live Activities.
    public struct ActivityEnablementUpdates: AsyncSequence {
        public typealias Element = Bool
        let stream: AsyncStream<Bool>
        public func makeAsyncIterator() -> AsyncStream<Bool>.Iterator { stream.makeAsyncIterator() }
    }

    /// An asynchronous sequence of whether frequent ActivityKit push notifications are permitted.
    @available(iOS 16.2, *)
    public struct FrequentPushEnablementUpdates: AsyncSequence {
        public typealias Element = Bool
        let stream: AsyncStream<Bool>
        public func makeAsyncIterator() -> AsyncStream<Bool>.Iterator { stream.makeAsyncIterator() }
    }
}

/// One value source, many listeners: each `stream()` is a fresh `AsyncStream` that receives every
/// value yielded after it was made.
final class Broadcast<Element: Sendable>: Sendable {
    private let continuations = Mutex<[UUID: AsyncStream<Element>.Continuation]>([:])

    func stream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let key = UUID()
        continuations.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.continuations.withLock { $0.removeValue(forKey: key) }
        }
        return stream
    }

    func yield(_ element: Element) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(element) }
    }
}

/// What ActivityKit keeps per attributes type: the activities started, the push-to-start token and
/// the streams announcing them. Static stored properties are not allowed in generic types, so one
/// registry per type lives in a table keyed by the type.
@available(iOS 16.1, *)
final class Registry<Attributes: ActivityAttributes>: Sendable {
    static var shared: Registry<Attributes> {
        registryTable.withLock { table in
            let key = ObjectIdentifier(Attributes.self)
            if let existing = table[key] as? Registry<Attributes> { return existing }
            let made = Registry<Attributes>()
            table[key] = made
            return made
        }
    }

    private let state = Mutex<(activities: [Activity<Attributes>], pushToStartToken: Data?)>(([], nil))
    let started = Broadcast<Activity<Attributes>>()
    let pushToStartTokens = Broadcast<Data>()

    var activities: [Activity<Attributes>] { state.withLock { $0.activities } }
    var pushToStartToken: Data? { state.withLock { $0.pushToStartToken } }

    func add(_ activity: Activity<Attributes>) {
        state.withLock { $0.activities.append(activity) }
        started.yield(activity)
    }

    func remove(_ activity: Activity<Attributes>) {
        state.withLock { $0.activities.removeAll { $0 === activity } }
    }

    func setPushToStartToken(_ token: Data) {
        state.withLock { $0.pushToStartToken = token }
        pushToStartTokens.yield(token)
    }
}

private let registryTable = Mutex<[ObjectIdentifier: AnyObject]>([:])
