// The look-alike's in-memory stand-in for what ActivityKit keeps in the system: each activity's state,
// content and token, the activities of each attributes type, and the feeds behind every asynchronous
// sequence. Internal: none of it is ActivityKit API.
import Foundation

/// A value the look-alike moves between tasks the way ActivityKit hands values to its sequences, whether
/// or not its type is `Sendable` (an `Activity` is not).
struct Handed<Value>: @unchecked Sendable {
    let value: Value
}

/// One source, many listeners: each `subscribe()` is a fresh stream that gets every value sent after it.
final class Feed<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [UUID: AsyncStream<Handed<Value>>.Continuation] = [:]

    func subscribe() -> AsyncStream<Handed<Value>> {
        let (stream, continuation) = AsyncStream.makeStream(of: Handed<Value>.self)
        let key = UUID()
        lock.withLock { continuations[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.continuations.removeValue(forKey: key) }
        }
        return stream
    }

    func send(_ value: Value) {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.yield(Handed(value: value)) }
    }
}

/// Reads a feed's stream one value at a time; a class, so the sequences' iterators can offer a
/// non-mutating `next()` as ActivityKit's do.
final class FeedReader<Value>: @unchecked Sendable {
    private var iterator: AsyncStream<Handed<Value>>.Iterator

    init(_ stream: AsyncStream<Handed<Value>>) { iterator = stream.makeAsyncIterator() }

    func next() async -> Value? { await iterator.next()?.value }
}

/// One activity's state in the system.
final class ActivityModel<Attributes: ActivityAttributes>: @unchecked Sendable {
    private let lock = NSLock()
    private var currentState: ActivityState
    private var currentContent: ActivityContent<Attributes.ContentState>
    private var currentToken: Data?
    private var lastTimestamp: Date?
    let states = Feed<ActivityState>()
    let contents = Feed<ActivityContent<Attributes.ContentState>>()
    let tokens = Feed<Data>()

    init(state: ActivityState, content: ActivityContent<Attributes.ContentState>) {
        currentState = state
        currentContent = content
    }

    var state: ActivityState { lock.withLock { currentState } }
    var content: ActivityContent<Attributes.ContentState> { lock.withLock { currentContent } }
    var pushToken: Data? { lock.withLock { currentToken } }

    /// ActivityKit takes updates only while the activity shows, and drops one stamped before the last.
    func update(_ content: ActivityContent<Attributes.ContentState>, timestamp: Date? = nil) {
        let accepted = lock.withLock { () -> Bool in
            guard currentState == .active || currentState == .stale || currentState == .pending else { return false }
            if let timestamp, let lastTimestamp, timestamp < lastTimestamp { return false }
            lastTimestamp = timestamp ?? lastTimestamp
            currentContent = content
            return true
        }
        if accepted { contents.send(content) }
    }

    /// Ends it; answers the state it moved to, or nil when it had ended already or the end was stale.
    func end(
        _ content: ActivityContent<Attributes.ContentState>?, dismissImmediately: Bool, timestamp: Date?
    ) -> ActivityState? {
        let final = lock.withLock { () -> ActivityState? in
            guard currentState != .ended, currentState != .dismissed else { return nil }
            if let timestamp, let lastTimestamp, timestamp < lastTimestamp { return nil }
            if let content { currentContent = content }
            currentState = dismissImmediately ? .dismissed : .ended
            return currentState
        }
        guard let final else { return nil }
        if let content { contents.send(content) }
        states.send(final)
        return final
    }

    func setState(_ state: ActivityState) {
        lock.withLock { currentState = state }
        states.send(state)
    }

    func setPushToken(_ token: Data) {
        lock.withLock { currentToken = token }
        tokens.send(token)
    }
}

/// What ActivityKit keeps per attributes type: the activities started, the push-to-start token and the
/// feeds announcing them. Generic types cannot have static stored properties, so one registry per type
/// lives in a table keyed by the type.
final class Registry<Attributes: ActivityAttributes>: @unchecked Sendable {
    static var shared: Registry<Attributes> {
        registryLock.withLock {
            let key = ObjectIdentifier(Attributes.self)
            if let existing = registries[key] as? Registry<Attributes> { return existing }
            let made = Registry<Attributes>()
            registries[key] = made
            return made
        }
    }

    private let lock = NSLock()
    private var running: [Activity<Attributes>] = []
    private var startToken: Data?
    let started = Feed<Activity<Attributes>>()
    let pushToStartTokens = Feed<Data>()

    var activities: [Activity<Attributes>] { lock.withLock { running } }
    var pushToStartToken: Data? { lock.withLock { startToken } }

    func add(_ activity: Activity<Attributes>) {
        lock.withLock { running.append(activity) }
        started.send(activity)
    }

    func remove(_ id: String) {
        lock.withLock { running.removeAll { $0.id == id } }
    }

    func setPushToStartToken(_ token: Data) {
        lock.withLock { startToken = token }
        pushToStartTokens.send(token)
    }
}

private let registryLock = NSLock()
nonisolated(unsafe) private var registries: [ObjectIdentifier: AnyObject] = [:]
