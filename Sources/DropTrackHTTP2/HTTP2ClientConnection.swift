internal import CNGHTTP2
import DropTrackCrypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A request waiting for, or travelling on, a connection. A class: it moves from the inbox to the
/// waiting queue, an action, a stream and a completion, and each move of a struct retained its
/// method, path, headers, body and closure one by one.
final class PendingRequest: Sendable {
    typealias Completion = @Sendable (Result<HTTP2Response, HTTP2ClientError>) -> Void
    let request: HTTP2Request
    let deadline: ContinuousClock.Instant
    let completion: Completion

    init(request: HTTP2Request, deadline: ContinuousClock.Instant, completion: @escaping Completion) {
        self.request = request
        self.deadline = deadline
        self.completion = completion
    }
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
    /// Set by `retire()`; the connection's thread takes it on its next turn.
    private let retireRequested = Atomic<Bool>(false)
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

    /// Stops new work from coming here, lets the streams in flight finish, then closes: for a connection
    /// the peer spoiled for new requests (APNs' token rules). False when it was retired already.
    func retire() -> Bool {
        guard !retireRequested.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        if acceptsWork { setPhase(.draining) }
        wakeup.signal()
        return true
    }

    /// True once, the first time the connection's thread asks after `retire()`.
    func takeRetireRequest() -> Bool {
        retireRequested.load(ordering: .acquiring) && !retireTaken.exchange(true, ordering: .acquiringAndReleasing)
    }
    private let retireTaken = Atomic<Bool>(false)

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

extension ClientConnectionHandle: PoolConnection {
    var currentLoad: Int { load.load(ordering: .relaxed) }
    var currentCapacity: Int { capacity.load(ordering: .relaxed) }
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

/// The loop-thread side of a client connection: nghttp2's callbacks and the timers become events
/// for a `ClientConnectionStateMachine`, and its actions become nghttp2 calls and completions.
/// What is left here is I/O: building request frames and collecting response bytes.
final class ClientSession: H2Connection {
    typealias Action = ClientConnectionStateMachine.Action

    /// A stream's bytes: the request body nghttp2 reads from, and the response as it arrives.
    private final class StreamIO {
        let body: BodySource?
        var status = 0
        var headers: [HTTPHeader] = []
        var responseBody: [UInt8] = []
        init(body: [UInt8]) { self.body = body.isEmpty ? nil : BodySource(body) }
    }

    private let handle: ClientConnectionHandle
    private let events: ClientConnectionEvents
    private let authority: String
    private var machine: ClientConnectionStateMachine
    private var streamIO: [Int32: StreamIO] = [:]
    /// Actions not yet executed; events raised while executing append here and run in order.
    private var actions: [Action] = []
    private var executing = false

    init(
        fd: Int32, tls: TLSStream, handle: ClientConnectionHandle, events: ClientConnectionEvents, authority: String,
        configuration: HTTP2Client.Configuration, clock: ConnectionClock = .continuous
    ) {
        self.handle = handle
        self.events = events
        self.authority = authority
        machine = ClientConnectionStateMachine(
            timing: .init(
                pingInterval: configuration.pingInterval, pingTimeout: configuration.pingTimeout,
                assumedInitialStreams: configuration.assumedInitialStreams),
            now: clock.now())
        super.init(fd: fd, tls: tls, wakeup: handle.wakeup, clock: clock)
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
        // Both fail only without memory; a session that cannot send its SETTINGS is no session.
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0,
            nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20) == 0
        else {
            nghttp2_session_del(session)
            return nil
        }
        return session
    }

    // MARK: Events in

    override func processCommands() {
        if handle.takeRetireRequest() {
            machine.retire(into: &actions)
            executeActions()
        }
        let incoming = handle.takeQueued()
        guard !incoming.isEmpty else { return }
        machine.requestsEnqueued(incoming, into: &actions)
        executeActions()
    }

    override func onHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = streamIO[streamID] else { return }
        if name.count == 7 && name.elementsEqual(":status".utf8) {
            stream.status = Int(String(decoding: value, as: UTF8.self)) ?? 0
        } else if name.first != UInt8(ascii: ":") {
            stream.headers.append(
                HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
    }

    override func onData(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        streamIO[streamID]?.responseBody.append(contentsOf: bytes)
    }

    override func onHeadersComplete(streamID: Int32, endStream: Bool) {
        if endStream { responseEnded(streamID) }
    }

    override func onDataComplete(streamID: Int32) { responseEnded(streamID) }

    private func responseEnded(_ streamID: Int32) {
        guard let stream = streamIO[streamID], stream.status != 0 else { return }
        machine.responseReceived(
            streamID, HTTP2Response(status: stream.status, headers: stream.headers, body: stream.responseBody))
    }

    override func onStreamClose(streamID: Int32, errorCode: UInt32) {
        streamIO[streamID] = nil
        machine.streamClosed(streamID, errorCode: errorCode, now: clock.now(), into: &actions)
        executeActions()
    }

    override func onSettings() {
        let limit = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
        machine.settingsReceived(maxConcurrentStreams: Int(limit), into: &actions)
        executeActions()
    }

    override func onGoAway(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
        machine.goAwayReceived(lastStreamID: lastStreamID, into: &actions)
        executeActions()
    }

    override func onPingAck() { machine.pingAcknowledged() }

    override func nextTimerDeadline() -> ContinuousClock.Instant? { machine.nextTimerDeadline }

    override func fireTimers(now: ContinuousClock.Instant) {
        machine.tick(now: now, into: &actions)
        executeActions()
    }

    override func shouldClose() -> Bool { machine.isDrained }

    /// A server may write GOAWAY and close without waiting for this side to read it: read it now,
    /// so the requests it never processed are sent again rather than failed as lost in flight
    /// (one run in 40 of `APNsFaultTests`' GOAWAY test, while the emulator did not wait).
    override func peerClosedWhileWriting() {
        machine.peerStoppedReading()
        readWhatIsLeft()
    }

    override func connectionDidClose(reason: String) {
        handle.setPhase(.closed)
        machine.connectionClosed(reason: reason, into: &actions)
        // Work the pool queued since the last loop turn: the machine hands it back, unsent.
        machine.requestsEnqueued(handle.closeInbox(), into: &actions)
        executeActions()
        streamIO.removeAll()
        events.closed(handle, reason)
    }

    // MARK: Actions out

    /// Runs queued actions in order, including those that events raised along the way append.
    private func executeActions() {
        guard !executing else { return }
        executing = true
        var index = 0
        while index < actions.count {
            let action = actions[index]
            index += 1
            execute(action)
        }
        actions.removeAll(keepingCapacity: true)
        executing = false
    }

    private func execute(_ action: Action) {
        switch action {
        case .submit(let pending): submit(pending)
        case .resetStream(let streamID):
            submitted(
                "nghttp2_submit_rst_stream",
                nghttp2_submit_rst_stream(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue))
        case .sendPing:
            submitted("nghttp2_submit_ping", nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil))
        case .succeed(let pending, var response):
            handle.load.subtract(1, ordering: .relaxed)
            response.connection = handle.id
            pending.completion(.success(response))
        case .fail(let pending, let error):
            handle.load.subtract(1, ordering: .relaxed)
            pending.completion(.failure(error))
        case .requeue(let requests):
            handle.load.subtract(requests.count, ordering: .relaxed)
            events.unprocessed(requests)
        case .publishCapacity(let capacity): handle.capacity.store(capacity, ordering: .relaxed)
        case .becameReady:
            handle.setPhase(.ready)
            events.ready(handle)
        case .stopTakingWork:
            handle.setPhase(.draining)
            machine.requestsEnqueued(handle.closeInbox(), into: &actions)
        case .abort(let reason): abortConnection(reason)
        }
    }

    private func submit(_ pending: PendingRequest) {
        let request = pending.request
        let stream = StreamIO(body: request.body)
        // Pseudo-headers, the request's headers, then content-length, read in place: no array per request.
        let headers = request.headers
        let count = 4 + headers.count + (request.body.isEmpty ? 0 : 1)
        let field: (Int) -> (name: String, value: String, neverIndex: Bool) = { [authority] index in
            switch index {
            case 0: (":method", request.method, false)
            case 1: (":scheme", "https", false)
            case 2: (":authority", authority, false)
            case 3: (":path", request.path, request.neverIndexPath)
            case 4..<(4 + headers.count):
                (headers[index - 4].name, headers[index - 4].value, headers[index - 4].neverIndex)
            default: ("content-length", String(request.body.count), false)
            }
        }
        let streamID: Int32 = H2Connection.withNameValues(count, field) { nva, count in
            if let body = stream.body {
                var provider = H2Connection.dataProvider(for: body)
                return nghttp2_submit_request(session, nil, nva, count, &provider, nil)
            }
            return nghttp2_submit_request(session, nil, nva, count, nil, nil)
        }
        if streamID < 0 {
            machine.streamOpenFailed(pending, reason: String(cString: nghttp2_strerror(streamID)), into: &actions)
            return
        }
        streamIO[streamID] = stream
        machine.streamOpened(streamID, for: pending, now: clock.now())
    }
}
