internal import CNGHTTP2
import DropTrackCrypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A request waiting for, or travelling on, a connection.
struct PendingRequest: Sendable {
    typealias Completion = @Sendable (Result<HTTP2Response, HTTP2ClientError>) -> Void
    var request: HTTP2Request
    var deadline: ContinuousClock.Instant
    var completion: Completion
}

/// The thread-safe face of one client connection: the pool enqueues here, and the connection's
/// own thread takes the work. Load and capacity are atomics so the pool can choose without locks.
final class ClientConnectionHandle: Sendable {
    enum Phase: Int {
        case connecting = 0, ready, draining, closed
    }

    let id: Int
    let wakeup: Wakeup
    private let inbox = Mutex<(items: [PendingRequest], closed: Bool)>(([], false))
    /// Requests queued or in flight on this connection.
    let load = Atomic<Int>(0)
    /// How many streams the pool may count on: the server's `SETTINGS_MAX_CONCURRENT_STREAMS`
    /// once a response has proved it; an assumed figure before, so that APNs' "1 stream until the
    /// first valid token" does not make the pool open a connection per request at start-up.
    let capacity: Atomic<Int>
    private let phaseValue = Atomic<Int>(Phase.connecting.rawValue)
    /// The connection thread's id once it runs: work queued from that thread (a completion that
    /// sends the next request) needs no wake-up, which saves a system call per request.
    private let loopThreadID = Atomic<UInt>(0)

    func markLoopThread() { loopThreadID.store(UInt(pthread_self()), ordering: .releasing) }

    init(id: Int, assumedCapacity: Int) throws {
        self.id = id
        self.wakeup = try Wakeup()
        self.capacity = Atomic(assumedCapacity)
    }

    var phase: Phase { Phase(rawValue: phaseValue.load(ordering: .acquiring)) ?? .closed }
    func setPhase(_ phase: Phase) { phaseValue.store(phase.rawValue, ordering: .releasing) }

    /// True while the pool may send new work here.
    var acceptsWork: Bool {
        let phase = self.phase
        return phase == .connecting || phase == .ready
    }

    /// Hands a request to the connection; false when it has closed meanwhile.
    func enqueue(_ pending: PendingRequest) -> Bool {
        let wasEmpty: Bool? = inbox.withLock { box in
            if box.closed { return nil }
            box.items.append(pending)
            return box.items.count == 1
        }
        guard let wasEmpty else { return false }
        load.add(1, ordering: .relaxed)
        if wasEmpty && loopThreadID.load(ordering: .acquiring) != UInt(pthread_self()) { wakeup.signal() }
        return true
    }

    /// Takes everything queued so far.
    func takeQueued() -> [PendingRequest] {
        inbox.withLock { box in
            let items = box.items
            box.items.removeAll(keepingCapacity: true)
            return items
        }
    }

    /// Refuses further work and returns what was still queued.
    func closeInbox() -> [PendingRequest] {
        inbox.withLock { box in
            box.closed = true
            let items = box.items
            box.items = []
            return items
        }
    }
}

/// Callbacks from a connection to its pool, run on the connection's thread.
struct ClientConnectionEvents: Sendable {
    /// Requests the server never saw; the pool sends them on another connection.
    var unprocessed: @Sendable ([PendingRequest]) -> Void
    /// The connection is ready (first SETTINGS received).
    var ready: @Sendable (ClientConnectionHandle) -> Void
    /// The connection ended, with the reason.
    var closed: @Sendable (ClientConnectionHandle, String) -> Void
}

/// The loop-thread side of a client connection.
final class ClientSession: H2Connection {
    private final class Stream {
        let pending: PendingRequest
        let body: BodySource?
        var status = 0
        var headers: [HTTPHeader] = []
        var responseBody: [UInt8] = []
        var ended = false
        var completed = false
        init(pending: PendingRequest) {
            self.pending = pending
            self.body = pending.request.body.isEmpty ? nil : BodySource(pending.request.body)
        }
    }

    private let handle: ClientConnectionHandle
    private let events: ClientConnectionEvents
    private let authority: String
    private let configuration: HTTP2Client.Configuration
    private var waiting: [PendingRequest] = []
    private var waitingHead = 0
    private var streams: [Int32: Stream] = [:]
    private var remoteSettingsReceived = false
    private var sawResponse = false
    private var goAwayLastStreamID: Int32? = nil
    private var lastActivity = ContinuousClock.now
    private var pingSentAt: ContinuousClock.Instant? = nil
    private var nextSweep = ContinuousClock.now + .milliseconds(100)

    init(
        fd: Int32, tls: TLSStream, handle: ClientConnectionHandle, events: ClientConnectionEvents, authority: String,
        configuration: HTTP2Client.Configuration
    ) {
        self.handle = handle
        self.events = events
        self.authority = authority
        self.configuration = configuration
        super.init(fd: fd, tls: tls, wakeup: handle.wakeup)
    }

    override func makeSession(callbacks: OpaquePointer, userData: UnsafeMutableRawPointer) -> OpaquePointer? {
        handle.markLoopThread()
        var option: OpaquePointer? = nil
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        // Until the server's SETTINGS arrive, assume the stricter APNs rule of one stream.
        nghttp2_option_set_peer_max_concurrent_streams(option, 1)
        var session: OpaquePointer? = nil
        guard nghttp2_session_client_new2(&session, callbacks, userData, option) == 0 else { return nil }
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
        return session
    }

    private var remoteMaxStreams: Int {
        guard remoteSettingsReceived else { return 1 }
        return Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    override func processCommands() {
        let incoming = handle.takeQueued()
        if !incoming.isEmpty {
            if goAwayLastStreamID != nil {
                events.unprocessed(incoming)
                handle.load.subtract(incoming.count, ordering: .relaxed)
            } else {
                waiting.append(contentsOf: incoming)
            }
        }
        guard goAwayLastStreamID == nil else { return }
        let limit = remoteMaxStreams
        while waitingHead < waiting.count && streams.count < limit {
            let pending = waiting[waitingHead]
            waitingHead += 1
            submit(pending)
        }
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        } else if waitingHead > 4096 {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
    }

    private func submit(_ pending: PendingRequest) {
        let stream = Stream(pending: pending)
        var fields: [(name: String, value: String, neverIndex: Bool)] = [
            (":method", pending.request.method, false), (":scheme", "https", false), (":authority", authority, false),
            (":path", pending.request.path, pending.request.neverIndexPath),
        ]
        for header in pending.request.headers { fields.append((header.name, header.value, header.neverIndex)) }
        if !pending.request.body.isEmpty {
            fields.append(("content-length", String(pending.request.body.count), false))
        }
        let streamID: Int32 = H2Connection.withNameValues(fields) { nva, count in
            if let body = stream.body {
                var provider = H2Connection.dataProvider(for: body)
                return nghttp2_submit_request(session, nil, nva, count, &provider, nil)
            }
            return nghttp2_submit_request(session, nil, nva, count, nil, nil)
        }
        if streamID < 0 {
            complete(
                stream,
                .failure(
                    HTTP2ClientError(
                        .streamReset, "cannot open a stream: \(String(cString: nghttp2_strerror(streamID)))",
                        unprocessed: true)))
            return
        }
        streams[streamID] = stream
        lastActivity = .now
    }

    private func complete(_ stream: Stream, _ result: Result<HTTP2Response, HTTP2ClientError>) {
        guard !stream.completed else { return }
        stream.completed = true
        handle.load.subtract(1, ordering: .relaxed)
        stream.pending.completion(result)
    }

    override func onHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        if name.count == 7 && name.elementsEqual(":status".utf8) {
            stream.status = Int(String(decoding: value, as: UTF8.self)) ?? 0
        } else if name.first != UInt8(ascii: ":") {
            stream.headers.append(
                HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
    }

    override func onData(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        streams[streamID]?.responseBody.append(contentsOf: bytes)
    }

    override func onHeadersComplete(streamID: Int32, endStream: Bool) {
        if endStream, let stream = streams[streamID], stream.status != 0 { stream.ended = true }
    }

    override func onDataComplete(streamID: Int32) { streams[streamID]?.ended = true }

    override func onStreamClose(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        lastActivity = .now
        if stream.ended && stream.status != 0 {
            if !sawResponse {
                sawResponse = true
                handle.capacity.store(max(1, remoteMaxStreams), ordering: .relaxed)
            }
            complete(
                stream,
                .success(HTTP2Response(status: stream.status, headers: stream.headers, body: stream.responseBody)))
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            // The server did not process it (RFC 9113 §8.7): send it again elsewhere, deadline unchanged.
            if !stream.completed {
                stream.completed = true
                handle.load.subtract(1, ordering: .relaxed)
                events.unprocessed([stream.pending])
            }
        } else {
            complete(
                stream,
                .failure(HTTP2ClientError(.streamReset, "the server reset the stream (HTTP/2 error \(errorCode))")))
        }
    }

    override func onSettings() {
        let first = !remoteSettingsReceived
        remoteSettingsReceived = true
        let capacity = sawResponse ? remoteMaxStreams : max(remoteMaxStreams, configuration.assumedInitialStreams)
        handle.capacity.store(max(1, capacity), ordering: .relaxed)
        if first {
            handle.setPhase(.ready)
            events.ready(handle)
        }
    }

    override func onGoAway(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
        goAwayLastStreamID = lastStreamID
        handle.setPhase(.draining)
        // Everything not yet sent goes to another connection now; nghttp2 closes the streams above
        // lastStreamID with REFUSED_STREAM, which onStreamClose hands back too.
        var unsent = Array(waiting[waitingHead...])
        waiting.removeAll()
        waitingHead = 0
        unsent.append(contentsOf: handle.closeInbox())
        if !unsent.isEmpty {
            handle.load.subtract(unsent.count, ordering: .relaxed)
            events.unprocessed(unsent)
        }
    }

    override func onPingAck() { pingSentAt = nil }

    override func nextTimerDeadline() -> ContinuousClock.Instant? {
        var next = nextSweep
        if streams.isEmpty && waiting.count == waitingHead && pingSentAt == nil {
            next = min(next, lastActivity + configuration.pingInterval)
        }
        return next
    }

    override func fireTimers(now: ContinuousClock.Instant) {
        if now >= nextSweep {
            nextSweep = now + .milliseconds(100)
            sweepDeadlines(now: now)
            if let sent = pingSentAt, now - sent > configuration.pingTimeout {
                abortConnection("no PING acknowledgement within \(configuration.pingTimeout)")
                return
            }
        }
        if streams.isEmpty && pingSentAt == nil && now - lastActivity >= configuration.pingInterval {
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
            pingSentAt = now
            lastActivity = now
        }
    }

    private func sweepDeadlines(now: ContinuousClock.Instant) {
        for (streamID, stream) in streams where stream.pending.deadline <= now && !stream.completed {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
            complete(stream, .failure(HTTP2ClientError(.deadlineExceeded, "no response before the deadline")))
        }
        if waitingHead < waiting.count {
            var kept: [PendingRequest] = []
            for pending in waiting[waitingHead...] {
                if pending.deadline <= now {
                    handle.load.subtract(1, ordering: .relaxed)
                    pending.completion(
                        .failure(
                            HTTP2ClientError(.deadlineExceeded, "no free stream before the deadline", unprocessed: true)
                        ))
                } else {
                    kept.append(pending)
                }
            }
            waiting = kept
            waitingHead = 0
        }
    }

    override func shouldClose() -> Bool { goAwayLastStreamID != nil && streams.isEmpty }

    override func connectionDidClose(reason: String) {
        handle.setPhase(.closed)
        var unsent = Array(waiting[waitingHead...])
        waiting.removeAll()
        waitingHead = 0
        unsent.append(contentsOf: handle.closeInbox())
        for (streamID, stream) in streams where !stream.completed {
            if let last = goAwayLastStreamID, streamID > last {
                stream.completed = true
                unsent.append(stream.pending)
            } else {
                complete(
                    stream,
                    .failure(HTTP2ClientError(.connectionLost, "connection lost with the request in flight: \(reason)"))
                )
            }
        }
        streams.removeAll()
        if !unsent.isEmpty {
            handle.load.subtract(unsent.count, ordering: .relaxed)
            events.unprocessed(unsent)
        }
        events.closed(handle, reason)
    }
}
