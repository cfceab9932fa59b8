import DropTrackContract
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackModel
import Synchronization

extension EventBus {
    /// A Server-Sent Events reply that relays an app's events (those `include` accepts) until the
    /// client goes, opening with a `ready` event carrying `ready`.
    ///
    /// The stream takes one of the bus's places for `key` (nil: counted in the total only); when none is left the
    /// reply is a 429 (the key's limit) or 503 (the server's) with `Retry-After`. A subscriber more than
    /// `EventStreamLimits.backlog` events behind, or whose client has more than the stream's queue unread, loses the
    /// oldest and gets `event: dropped` with `{"dropped":N}`; a client that stops reading altogether is
    /// disconnected by the HTTP server's write timeout. The subscription and the place end when the connection does.
    public func relay(
        app: AppID, key: String? = nil, ready: JSONValue,
        include: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) -> HTTPReply {
        let admission: EventStreamAdmission
        do {
            admission = try admit(key: key)
        } catch {
            return .response(refusal(error))
        }
        return .eventStream { [self] stream in
            let readyFrame = EventStream.frame(
                event: "ready", id: nil, data: String(decoding: ready.serialized(), as: UTF8.self))
            // Whoever gets here first, the delivery queue or this thread, sends `ready`, so it always comes first.
            let opened = Mutex(false)
            let id = subscribe(app: app.rawValue) { delivery in
                var frames: [[UInt8]] = []
                for event in delivery.events where include(event.payload) {
                    frames.append(event.wire { EventStream.frame(event: $0.name, id: nil, data: $0.data) })
                }
                opened.withLock { opened in
                    if !opened { stream.send(frames: [readyFrame]) }
                    opened = true
                    stream.send(frames: frames, dropped: delivery.dropped)
                }
            }
            opened.withLock { opened in
                if !opened { stream.send(frames: [readyFrame]) }
                opened = true
            }
            // The connection's end, not the next event, ends the subscription and gives the place back.
            stream.onClose { [self] in
                unsubscribe(app: app.rawValue, id: id)
                withExtendedLifetime(admission) {}
            }
        }
    }

    /// The answer to a stream the limits refuse: what the limit is and what to do.
    func refusal(_ refusal: EventStreamRefusal) -> HTTPResponse {
        let error: APIError
        switch refusal {
        case .keyLimit(let limit):
            error = APIError(
                429, .tooManyStreams,
                "this API key already has \(limit) open event streams, the most one key may hold; close one "
                    + "before opening another (one stream carries every activity of the app; add ?activityId= to "
                    + "filter one instead of opening a stream per activity)")
        case .serverLimit(let limit):
            error = APIError(
                503, .streamsExhausted,
                "the server already holds \(limit) open event streams, its limit; retry after the Retry-After seconds")
        }
        var response = HTTPResponse.json(error.status, error.body.serialized())
        response.headers.append((name: "Retry-After", value: String(limits.retryAfterSeconds)))
        return response
    }
}
