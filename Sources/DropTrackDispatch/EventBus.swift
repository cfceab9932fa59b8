import Dispatch
import DropTrackContract
import Foundation
import Synchronization

/// Send outcomes as they happen, per app, for `GET /v1/events` (SSE). Subscribers get JSON lines;
/// tokens appear only as fingerprints.
///
/// `publish` runs on the dispatcher's thread, so it only appends the event to the app's backlog (a ring of
/// `EventStreamLimits.backlog` events) and wakes the delivery queue: its cost does not grow with the number of
/// subscribers, and no subscriber can block it. The delivery queue hands each subscriber, in one call, every event
/// it has not had; one that fell more than the backlog behind gets the newest ones and the count of those it lost.
public final class EventBus: Sendable {
    /// What a subscriber is handed at once, oldest first.
    public struct Delivery: Sendable {
        /// The events it has not had.
        public var events: [Event]
        /// Events it lost before these because it fell more than the backlog behind.
        public var dropped: Int
    }

    /// Called on the delivery queue, one call at a time per bus; must not block.
    public typealias Subscriber = @Sendable (Delivery) -> Void

    /// One published event. Its JSON text, and any wire form a subscriber derives from it, are made once and
    /// shared by every subscriber.
    public final class Event: Sendable {
        /// The event name (`send`, …).
        public let name: String
        /// The payload.
        public let payload: JSONValue
        private let cache = Mutex<(data: String?, wire: [UInt8]?)>((nil, nil))

        init(name: String, payload: JSONValue) {
            self.name = name
            self.payload = payload
        }

        /// The payload as JSON text, serialized on first use (on the delivery queue, not the publisher's thread).
        public var data: String {
            if let data = cache.withLock({ $0.data }) { return data }
            let data = String(decoding: payload.serialized(), as: UTF8.self)
            cache.withLock { $0.data = data }
            return data
        }

        /// The bytes `make` builds from this event, built by the first subscriber to ask and kept for the rest.
        public func wire(_ make: (Event) -> [UInt8]) -> [UInt8] {
            if let wire = cache.withLock({ $0.wire }) { return wire }
            let wire = make(self)
            cache.withLock { $0.wire = wire }
            return wire
        }
    }

    private struct Subscription {
        /// The sequence number of the next event this subscriber is owed.
        var cursor: Int
        let deliver: Subscriber
    }

    /// One app's subscribers and recent events. Exists only while the app has subscribers.
    private struct Channel {
        /// Event number `n` is at `ring[n % backlog]` while it is among the last `backlog` published.
        var ring: [Event?] = []
        var published = 0
        var subscriptions: [Int: Subscription] = [:]

        mutating func append(_ event: Event, backlog: Int) {
            if ring.isEmpty { ring = Array(repeating: nil, count: backlog) }
            ring[published % backlog] = event
            published += 1
        }

        /// Moves every subscriber's cursor to the end, collecting what each is owed. Subscribers at the same place
        /// (usually all of them) share one array.
        mutating func collect(backlog: Int, into work: inout [(Subscriber, Delivery)]) {
            let oldest = max(0, published - backlog)
            var slices: [Int: [Event]] = [:]
            // Walked by index, not `indices`, which would hold a second reference and copy the table on write.
            var index = subscriptions.values.startIndex
            while index != subscriptions.values.endIndex {
                defer { subscriptions.values.formIndex(after: &index) }
                let cursor = subscriptions.values[index].cursor
                guard cursor < published else { continue }
                let start = max(cursor, oldest)
                let events =
                    slices[start]
                    ?? {
                        let events = (start..<published).compactMap { ring[$0 % backlog] }
                        slices[start] = events
                        return events
                    }()
                subscriptions.values[index].cursor = published
                work.append((subscriptions.values[index].deliver, Delivery(events: events, dropped: start - cursor)))
            }
        }
    }

    private struct State {
        var channels: [String: Channel] = [:]
        /// Apps with events not yet handed out.
        var pending: Set<String> = []
        /// A drain is queued or running; it runs until `pending` is empty.
        var scheduled = false
        var lastID = 0
    }

    /// The limits on streams and on how far a subscriber may fall behind.
    public let limits: EventStreamLimits
    private let state = Mutex(State())
    private let streams: EventStreamCounts
    private let delivery = DispatchQueue(label: "droptrack.events.delivery")

    /// Creates a bus; `limits` bound the streams `admit` lets in and each app's backlog.
    public init(limits: EventStreamLimits = EventStreamLimits()) {
        self.limits = limits
        streams = EventStreamCounts(limits: limits)
    }

    /// Subscribes to an app's events from now on; returns a handle for `unsubscribe`.
    public func subscribe(app: String, _ subscriber: @escaping Subscriber) -> Int {
        state.withLock { state in
            state.lastID += 1
            var channel = state.channels.removeValue(forKey: app) ?? Channel()
            channel.subscriptions[state.lastID] = Subscription(cursor: channel.published, deliver: subscriber)
            state.channels[app] = channel
            return state.lastID
        }
    }

    /// Ends a subscription at once; an app's last one frees its backlog.
    public func unsubscribe(app: String, id: Int) {
        state.withLock { state in
            state.channels[app]?.subscriptions[id] = nil
            if state.channels[app]?.subscriptions.isEmpty == true { state.channels[app] = nil }
        }
    }

    /// Subscribers of an app.
    public func count(app: String) -> Int { state.withLock { $0.channels[app]?.subscriptions.count ?? 0 } }

    /// Publishes an event to an app's subscribers. Never blocks on them: it appends to the app's backlog and
    /// returns, whatever the number of subscribers or how slow they are.
    public func publish(app: String, event: String, payload: JSONValue) {
        let item = Event(name: event, payload: payload)
        let schedule = state.withLock { state -> Bool in
            guard state.channels[app] != nil else { return false }
            state.channels[app]?.append(item, backlog: limits.backlog)
            state.pending.insert(app)
            guard !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
        if schedule { delivery.async { self.drain() } }
    }

    /// Hands out everything pending, then stops; a publish meanwhile keeps it going rather than queueing another.
    private func drain() {
        while true {
            let work = state.withLock { state -> [(Subscriber, Delivery)] in
                var work: [(Subscriber, Delivery)] = []
                for app in state.pending { state.channels[app]?.collect(backlog: limits.backlog, into: &work) }
                state.pending.removeAll()
                if work.isEmpty { state.scheduled = false }
                return work
            }
            if work.isEmpty { return }
            for (deliver, delivery) in work { deliver(delivery) }
        }
    }

    /// Takes a place for one more stream, for `key` (nil: counted only in the total). The place is given back when
    /// the returned admission is released; keep it for as long as the stream is open.
    public func admit(key: String?) throws(EventStreamRefusal) -> EventStreamAdmission {
        try streams.admit(key: key)
    }

    /// Streams holding a place now, in total.
    public var openStreams: Int { streams.total }

    /// Streams holding a place now for one key.
    public func openStreams(key: String) -> Int { streams.count(key: key) }
}
