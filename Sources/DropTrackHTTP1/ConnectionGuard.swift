import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Counts the server's connections, refuses those past `HTTPServerLimits`' caps, and cuts clients too slow to send
/// their request. libmicrohttpd 0.9.75 has none of this in a usable form: its connection limit is split between the
/// pool's threads and, once reached, leaves new connections waiting in the kernel's backlog; its per-IP limit closes
/// without a word; and its idle timeout restarts on every byte, so a header line every few seconds keeps a
/// connection forever.
///
/// libmicrohttpd owns every socket, so this only ever writes a short answer to one and shuts it down (never closes
/// it): libmicrohttpd then sees the end of the stream and frees the connection itself. An entry leaves the table in
/// libmicrohttpd's close notification, which comes before it closes the descriptor, and sockets are only touched
/// under the table's lock: a descriptor number reused by a newer connection is never shut down by mistake.
final class ConnectionGuard: Sendable {
    enum Phase {
        /// Waiting for a request line and headers, since the connection opened or the previous response ended.
        case awaitingHeaders
        /// Reading a body, with this many bytes in.
        case receivingBody(received: Int)
        /// A handler is running or the response is being sent (SSE streams stay here): no deadline applies.
        case responding
    }

    private struct Entry {
        var descriptor: Int32
        var address: UInt32
        /// Answered 503 or 429 and shut down when it opened; not counted against either cap.
        var refused: Bool
        var phase = Phase.awaitingHeaders
        var since: ContinuousClock.Instant
        /// Cut by the sweep already (its socket is shut down; libmicrohttpd will notice).
        var cut = false
        /// A response went out on it: waiting for headers now means an idle keep-alive connection.
        var served = false
    }

    private struct State {
        var nextID = 1
        var entries: [Int: Entry] = [:]
        var perAddress: [UInt32: Int] = [:]
        var open = 0
    }

    let limits: HTTPServerLimits
    private let state = Mutex(State())

    init(limits: HTTPServerLimits) {
        self.limits = limits.normalized
    }

    /// Connections counted against the caps (refused ones are not).
    var openConnections: Int { state.withLock { $0.open } }

    /// A new connection. Past a cap it is answered and shut down here, before libmicrohttpd reads anything from it.
    /// Returns the id to keep with the connection.
    func opened(descriptor: Int32, address: UInt32) -> Int {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            var refusal: [UInt8]?
            if state.open >= limits.maximumConnections {
                refusal = Self.serviceUnavailable(retryAfter: limits.retryAfterSeconds)
            } else if state.perAddress[address, default: 0] >= limits.maximumConnectionsPerAddress {
                refusal = Self.tooManyRequests(
                    limit: limits.maximumConnectionsPerAddress, retryAfter: limits.retryAfterSeconds)
            }
            state.entries[id] = Entry(
                descriptor: descriptor, address: address, refused: refusal != nil, since: .now)
            if let refusal {
                Self.answerAndShutDown(descriptor, refusal)
            } else {
                state.open += 1
                state.perAddress[address, default: 0] += 1
            }
            return id
        }
    }

    /// libmicrohttpd is closing the connection (its descriptor is still open).
    func closed(_ id: Int) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: id), !entry.refused else { return }
            state.open -= 1
            let left = state.perAddress[entry.address, default: 1] - 1
            state.perAddress[entry.address] = left > 0 ? left : nil
        }
    }

    /// The request's headers are in: its body, if any, is read next. False if the connection was refused or cut:
    /// should libmicrohttpd still parse a request that was in flight when the socket was shut down, it must not
    /// reach the handler (defence in depth; the tests have not seen it happen).
    func headersReceived(_ id: Int) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[id] else { return true }
            guard !entry.refused && !entry.cut else { return false }
            state.entries[id]?.phase = .receivingBody(received: 0)
            state.entries[id]?.since = .now
            return true
        }
    }

    func bodyReceived(_ id: Int, count: Int) {
        state.withLock { state in
            guard case .receivingBody(let received)? = state.entries[id]?.phase else { return }
            // The clock keeps running from the end of the headers: received bytes buy time, they do not reset it.
            state.entries[id]?.phase = .receivingBody(received: received + count)
        }
    }

    /// The request is answered (or being answered): no deadline until the response has been sent.
    func responding(_ id: Int) { move(id, to: .responding) }

    /// The response has been sent: the next request's headers are due within `headerTimeout` from now.
    func requestFinished(_ id: Int) {
        move(id, to: .awaitingHeaders)
        state.withLock { $0.entries[id]?.served = true }
    }

    private func move(_ id: Int, to phase: Phase) {
        state.withLock { state in
            guard state.entries[id] != nil else { return }
            state.entries[id]?.phase = phase
            state.entries[id]?.since = .now
        }
    }

    /// Cuts every connection past its header or body deadline with a `408`; returns how many it cut.
    @discardableResult
    func sweep(now: ContinuousClock.Instant = .now) -> Int {
        state.withLock { state in
            var cut = 0
            for (id, entry) in state.entries where !entry.refused && !entry.cut {
                let elapsed = now - entry.since
                let message: String
                switch entry.phase {
                case .responding:
                    continue
                case .awaitingHeaders:
                    guard elapsed > limits.headerTimeout else { continue }
                    message = "the request line and headers did not arrive within \(limits.headerTimeout)"
                case .receivingBody(let received):
                    let allowance =
                        limits.bodyTimeout + .seconds(Double(received) / Double(limits.minimumBodyBytesPerSecond))
                    guard elapsed > allowance else { continue }
                    message =
                        "the request body arrived slower than \(limits.minimumBodyBytesPerSecond) bytes per second"
                }
                if case .awaitingHeaders = entry.phase, entry.served {
                    // An idle keep-alive connection closes without a word, as keep-alive timeouts do: a 408 there
                    // could meet the client's next request on the wire and be read as its answer.
                    _ = shutdown(entry.descriptor, Int32(SHUT_RDWR))
                } else {
                    Self.answerAndShutDown(entry.descriptor, Self.requestTimeout(message))
                }
                state.entries[id]?.cut = true
                cut += 1
            }
            return cut
        }
    }

    /// Shuts down every connection still open, so its client sees the end at once (for `stop` past its deadline).
    func shutDownAll() {
        state.withLock { state in
            for entry in state.entries.values { _ = shutdown(entry.descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// A timer that sweeps a few times per header timeout (at least once a second).
    func makeSweepTimer() -> any DispatchSourceTimer {
        let shortest = min(limits.headerTimeout, limits.bodyTimeout)
        let period = min(max(shortest / 4, .milliseconds(20)), .seconds(1))
        let nanoseconds =
            Int(period.components.seconds) * 1_000_000_000 + Int(period.components.attoseconds / 1_000_000_000)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(
            deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
            leeway: .milliseconds(10))
        timer.setEventHandler { [self] in sweep() }
        return timer
    }

    // MARK: - Raw answers, written straight to the socket

    /// Writes what fits without waiting (a new or idle socket's buffer takes it all), drops whatever the client has
    /// sent so far (unread data would turn the close into a reset that can destroy the answer in flight), and shuts
    /// the socket down both ways.
    private static func answerAndShutDown(_ descriptor: Int32, _ bytes: [UInt8]) {
        guard descriptor >= 0 else { return }
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            let count = scratch.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count <= 0 { break }
        }
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    static func serviceUnavailable(retryAfter: Int) -> [UInt8] {
        raw(
            "503 Service Unavailable", retryAfter: retryAfter, code: "unavailable",
            message: "the server has too many open connections; retry later")
    }

    static func tooManyRequests(limit: Int, retryAfter: Int) -> [UInt8] {
        raw(
            "429 Too Many Requests", retryAfter: retryAfter, code: "too_many_connections",
            message: "more than \(limit) open connections from your address; close some or retry later")
    }

    static func requestTimeout(_ message: String) -> [UInt8] {
        raw("408 Request Timeout", retryAfter: nil, code: "request_timeout", message: message)
    }

    private static func raw(_ status: String, retryAfter: Int?, code: String, message: String) -> [UInt8] {
        let body = #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#
        var head = "HTTP/1.1 \(status)\r\nContent-Type: application/json; charset=utf-8\r\n"
        head += "Content-Length: \(body.utf8.count)\r\n"
        if let retryAfter { head += "Retry-After: \(retryAfter)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array((head + body).utf8)
    }
}
