import DropTrackContract
import DropTrackDispatch
import DropTrackHTTP1
import Synchronization

extension EventBus {
    /// A Server-Sent Events reply that relays an app's events (those `include` accepts) until the
    /// client goes, opening with a `ready` event carrying `ready`.
    public func relay(
        app: String, ready: JSONValue, include: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
    ) -> HTTPReply {
        .eventStream { [self] stream in
            let handle = Mutex<Int?>(nil)
            let id = subscribe(app: app) { event, payload, data in
                if stream.isClosed {
                    if let id = handle.withLock({ $0 }) { self.unsubscribe(app: app, id: id) }
                    return
                }
                if include(payload) { stream.send(event: event, data: data) }
            }
            handle.withLock { $0 = id }
            stream.send(event: "ready", data: String(decoding: ready.serialized(), as: UTF8.self))
        }
    }
}
