import Foundation

// ActivityKit's asynchronous sequences, each with its own iterator type as ActivityKit declares them.
// Only `ActivityStateUpdates.Iterator` is `Sendable` there, and so here.

@available(iOS 16.1, *)
extension Activity {
    /// An asynchronous sequence of Live Activities that started.
    public struct ActivityUpdates: AsyncSequence {
        public typealias Element = Activity<Attributes>
        let feed: AsyncStream<Handed<Activity<Attributes>>>

        public func makeAsyncIterator() -> Activity<Attributes>.ActivityUpdates.Iterator {
            Iterator(reader: FeedReader(feed))
        }

        /// Reads the activities one at a time.
        public struct Iterator: AsyncIteratorProtocol {
            let reader: FeedReader<Activity<Attributes>>

            public func next() async -> Activity<Attributes>.ActivityUpdates.Element? { await reader.next() }
        }
    }

    /// An asynchronous sequence of activity states.
    public struct ActivityStateUpdates: AsyncSequence {
        public typealias Element = ActivityState
        let feed: AsyncStream<Handed<ActivityState>>

        public func makeAsyncIterator() -> Activity<Attributes>.ActivityStateUpdates.Iterator {
            Iterator(reader: FeedReader(feed))
        }

        /// Reads the states one at a time.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            let reader: FeedReader<ActivityState>

            public func next() async -> Activity<Attributes>.ActivityStateUpdates.Element? { await reader.next() }
        }
    }

    /// An asynchronous sequence of content updates.
    @available(iOS 16.2, *)
    public struct ContentUpdates: AsyncSequence {
        public typealias Element = ActivityContent<Activity<Attributes>.ContentState>
        let feed: AsyncStream<Handed<ActivityContent<Attributes.ContentState>>>

        public func makeAsyncIterator() -> Activity<Attributes>.ContentUpdates.Iterator {
            Iterator(reader: FeedReader(feed))
        }

        /// Reads the contents one at a time.
        public struct Iterator: AsyncIteratorProtocol {
            let reader: FeedReader<ActivityContent<Attributes.ContentState>>

            public func next() async -> Activity<Attributes>.ContentUpdates.Element? { await reader.next() }
        }
    }

    /// An asynchronous sequence of push tokens.
    public struct PushTokenUpdates: AsyncSequence {
        public typealias Element = Data
        let feed: AsyncStream<Handed<Data>>

        public func makeAsyncIterator() -> Activity<Attributes>.PushTokenUpdates.Iterator {
            Iterator(reader: FeedReader(feed))
        }

        /// Reads the tokens one at a time.
        public struct Iterator: AsyncIteratorProtocol {
            let reader: FeedReader<Data>

            public func next() async -> Activity<Attributes>.PushTokenUpdates.Element? { await reader.next() }
        }
    }
}

/// Whether a person allowed the app to start Live Activities and to update them with frequent pushes.
@available(iOS 16.1, *)
public final class ActivityAuthorizationInfo {
    /// The person's settings, as the system keeps them (the look-alike's simulation hooks change them).
    static let store = AuthorizationStore()

    /// Whether the person permitted frequent ActivityKit push notifications.
    @available(iOS 16.2, *)
    public final var frequentPushesEnabled: Bool { Self.store.frequentPushesEnabled }

    /// Whether the app can start a Live Activity.
    public final var areActivitiesEnabled: Bool { Self.store.activitiesEnabled }

    /// Observes whether the app can start a Live Activity.
    public final let activityEnablementUpdates: ActivityAuthorizationInfo.ActivityEnablementUpdates

    /// Observes whether the person permitted frequent ActivityKit push notifications.
    @available(iOS 16.2, *)
    public final let frequentPushEnablementUpdates: ActivityAuthorizationInfo.FrequentPushEnablementUpdates

    /// Creates an object that observes the person's authorizations.
    public init() {
        activityEnablementUpdates = ActivityEnablementUpdates(feed: Self.store.enablement.subscribe())
        frequentPushEnablementUpdates = FrequentPushEnablementUpdates(
            feed: Self.store.frequentPushEnablement.subscribe())
    }

    /// An asynchronous sequence of whether the app can start Live Activities.
    public struct ActivityEnablementUpdates: AsyncSequence {
        public typealias Element = Bool
        let feed: AsyncStream<Handed<Bool>>

        public func makeAsyncIterator() -> ActivityAuthorizationInfo.ActivityEnablementUpdates.Iterator {
            Iterator(reader: FeedReader(feed))
        }

        /// Reads the values one at a time.
        public struct Iterator: AsyncIteratorProtocol {
            let reader: FeedReader<Bool>

            public mutating func next() async -> Bool? { await reader.next() }
        }
    }

    /// An asynchronous sequence of whether frequent ActivityKit push notifications are permitted.
    @available(iOS 16.2, *)
    public struct FrequentPushEnablementUpdates: AsyncSequence {
        public typealias Element = Bool
        let feed: AsyncStream<Handed<Bool>>

        public func makeAsyncIterator() -> ActivityAuthorizationInfo.FrequentPushEnablementUpdates.Iterator {
            Iterator(reader: FeedReader(feed))
        }

        /// Reads the values one at a time.
        public struct Iterator: AsyncIteratorProtocol {
            let reader: FeedReader<Bool>

            public mutating func next() async -> Bool? { await reader.next() }
        }
    }
}

/// The Live Activities settings a person set for the app, and the feeds announcing changes.
final class AuthorizationStore: @unchecked Sendable {
    private let lock = NSLock()
    private var settings = (activitiesEnabled: true, frequentPushesEnabled: false)
    let enablement = Feed<Bool>()
    let frequentPushEnablement = Feed<Bool>()

    var activitiesEnabled: Bool { lock.withLock { settings.activitiesEnabled } }
    var frequentPushesEnabled: Bool { lock.withLock { settings.frequentPushesEnabled } }

    func set(activitiesEnabled: Bool, frequentPushesEnabled: Bool) {
        lock.withLock { settings = (activitiesEnabled, frequentPushesEnabled) }
        enablement.send(activitiesEnabled)
        frequentPushEnablement.send(frequentPushesEnabled)
    }
}
