import DropTrackContract
import Foundation
import Synchronization

/// Send outcomes as they happen, per app, for `GET /v1/events` (SSE). Subscribers get JSON lines;
/// tokens appear only as fingerprints.
public final class EventBus: Sendable {
    public typealias Subscriber = @Sendable (_ event: String, _ payload: JSONValue, _ data: String) -> Void

    private let subscribers = Mutex<[String: [Int: Subscriber]]>([:])
    private let counter = Mutex(0)

    public init() {}

    /// Subscribes to an app's events; returns a handle for `unsubscribe`.
    public func subscribe(app: String, _ subscriber: @escaping Subscriber) -> Int {
        let id = counter.withLock {
            $0 += 1
            return $0
        }
        subscribers.withLock { $0[app, default: [:]][id] = subscriber }
        return id
    }

    public func unsubscribe(app: String, id: Int) { subscribers.withLock { $0[app]?[id] = nil } }

    /// Subscribers of an app.
    public func count(app: String) -> Int { subscribers.withLock { $0[app]?.count ?? 0 } }

    /// Publishes an event to an app's subscribers.
    public func publish(app: String, event: String, payload: JSONValue) {
        let targets = subscribers.withLock { Array(($0[app] ?? [:]).values) }
        guard !targets.isEmpty else { return }
        let data = String(decoding: payload.serialized(), as: UTF8.self)
        for target in targets { target(event, payload, data) }
    }
}
