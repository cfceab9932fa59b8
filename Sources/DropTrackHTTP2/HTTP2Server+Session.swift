// One accepted connection of `HTTP2Server`: nghttp2's callbacks and the timers become events for a
// `ServerConnectionStateMachine`, and its actions become nghttp2 calls and handler calls.
internal import CNGHTTP2
import DropTrackCore
import DropTrackCrypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The loop-thread side of a server connection: the I/O half. What a stream's request holds and
/// the bytes of its answer live here; which streams are open, answered or refused, and when to
/// send GOAWAY, is the machine's.
final class ServerSession: H2Connection {
    typealias Action = ServerConnectionStateMachine.Action

    private final class Stream {
        var method = ""
        var path = ""
        var authority = ""
        var headers: [HTTPHeader] = {
            var headers: [HTTPHeader] = []
            headers.reserveCapacity(10)
            return headers
        }()
        var body: [UInt8] = []
        var response: BodySource? = nil

        /// Ready for another request; arrays keep their capacity when nothing else holds them.
        func reset() {
            method = ""
            path = ""
            authority = ""
            headers.removeAll(keepingCapacity: true)
            body.removeAll(keepingCapacity: true)
            response = nil
        }
    }

    /// Closed streams kept for reuse: a request then costs no allocation for its stream object.
    private var spareStreams: [Stream] = []

    private unowned let server: HTTP2Server
    private let handler: any HTTP2ServerHandler
    let context: HTTP2ServerConnectionContext
    private var streams: [Int32: Stream] = [:]
    private var machine = ServerConnectionStateMachine()
    /// Actions not yet executed, kept to reuse the array's storage across events.
    private var actions: [Action] = []

    init(
        fd: Int32, tls: TLSStream, wakeup: Wakeup, server: HTTP2Server, handler: any HTTP2ServerHandler,
        context: HTTP2ServerConnectionContext, clock: ConnectionClock = .continuous
    ) {
        self.server = server
        self.handler = handler
        self.context = context
        super.init(fd: fd, tls: tls, wakeup: wakeup, clock: clock)
    }

    override func makeSession(callbacks: OpaquePointer, userData: UnsafeMutableRawPointer) -> OpaquePointer? {
        var session: OpaquePointer? = nil
        guard nghttp2_session_server_new(&session, callbacks, userData) == 0 else { return nil }
        var started: [Action] = []
        machine.sessionStarted(maxConcurrentStreams: context.maxConcurrentStreams, into: &started)
        for case .sendSettings(let limit, _) in started {
            var settings = [
                nghttp2_settings_entry(
                    settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: limit),
                nghttp2_settings_entry(
                    settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                    value: ServerConnectionStateMachine.initialWindowSize),
            ]
            // Both fail only without memory; a session that cannot send its SETTINGS is no session.
            guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0,
                nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20) == 0
            else {
                nghttp2_session_del(session)
                return nil
            }
        }
        context.pendingMaxConcurrentStreams = nil
        return session
    }

    // MARK: Events in

    override func processCommands() {
        guard server.isStopping && !machine.isGoingAway else { return }
        machine.shutdownRequested(
            lastProcessedStreamID: nghttp2_session_get_last_proc_stream_id(session), into: &actions)
        executeActions()
    }

    /// Frames of one stream arrive together, so the last stream touched saves most dictionary lookups.
    private var lastStream: (id: Int32, stream: Stream)? = nil

    private func stream(_ id: Int32) -> Stream? {
        if let last = lastStream, last.id == id { return last.stream }
        guard let stream = streams[id] else { return nil }
        lastStream = (id, stream)
        return stream
    }

    override func onPing() { server.countPing() }

    override func onBeginHeaders(streamID: Int32) {
        let stream = spareStreams.popLast() ?? Stream()
        streams[streamID] = stream
        lastStream = (streamID, stream)
        machine.streamOpened(streamID)
    }

    override func onHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = stream(streamID) else { return }
        if name.first == UInt8(ascii: ":") {
            // Pseudo-headers differ in length: the length and the second byte tell them apart.
            switch (name.count, name.count > 1 ? name[1] : 0) {
            case (7, UInt8(ascii: "m")): stream.method = String(decoding: value, as: UTF8.self)
            case (5, UInt8(ascii: "p")): stream.path = String(decoding: value, as: UTF8.self)
            case (10, UInt8(ascii: "a")): stream.authority = internedValue(name: ":authority", value)
            default: break
            }
        } else {
            let nameText = String(decoding: name, as: UTF8.self)
            stream.headers.append(HTTPHeader(nameText, internedValue(name: nameText, value)))
        }
    }

    /// Clients repeat the same long values on every request (the provider token, the topic): the
    /// string from the previous request is reused when the bytes match, saving an allocation.
    private var recentValues: [(name: String, value: String)] = []

    private func internedValue(name: String, _ value: UnsafeBufferPointer<UInt8>) -> String {
        if value.count <= 15 { return String(decoding: value, as: UTF8.self) }
        for index in recentValues.indices where recentValues[index].name == name {
            let previous = recentValues[index].value
            let same =
                previous.utf8.withContiguousStorageIfAvailable { bytes in
                    bytes.count == value.count && memcmp(bytes.baseAddress!, value.baseAddress!, value.count) == 0
                } ?? false
            if same { return previous }
            let text = String(decoding: value, as: UTF8.self)
            recentValues[index].value = text
            return text
        }
        let text = String(decoding: value, as: UTF8.self)
        if recentValues.count < 8 { recentValues.append((name, text)) }
        return text
    }

    override func onData(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        stream(streamID)?.body.append(contentsOf: bytes)
    }

    override func onHeadersComplete(streamID: Int32, endStream: Bool) {
        if endStream { requestCompleted(streamID) }
    }

    override func onDataComplete(streamID: Int32) { requestCompleted(streamID) }

    private func requestCompleted(_ streamID: Int32) {
        machine.requestCompleted(streamID, into: &actions)
        executeActions()
    }

    override func onStreamClose(streamID: Int32, errorCode: UInt32) {
        machine.streamClosed(streamID)
        if let stream = streams.removeValue(forKey: streamID), spareStreams.count < 256 {
            stream.reset()
            spareStreams.append(stream)
        }
        if lastStream?.id == streamID { lastStream = nil }
    }

    override func nextTimerDeadline() -> ContinuousClock.Instant? { machine.nextTimerDeadline }

    override func fireTimers(now: ContinuousClock.Instant) {
        machine.timersDue(now: now, into: &actions)
        executeActions()
    }

    override func shouldClose() -> Bool { machine.shouldClose }

    override var lingersOnClose: Bool { machine.lingersOnClose }

    override func connectionDidClose(reason: String) { machine.connectionClosed() }

    // MARK: Actions out

    /// Runs the queued actions in order; one that closes the connection ends the run.
    private func executeActions() {
        var index = 0
        while index < actions.count && !isClosed {
            let action = actions[index]
            index += 1
            execute(action)
        }
        actions.removeAll(keepingCapacity: true)
    }

    private func execute(_ action: Action) {
        switch action {
        case .sendSettings(let limit, _):
            var entry = nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: limit)
            submitted(
                "nghttp2_submit_settings",
                nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1))
        case .callHandler(let streamID): callHandler(streamID)
        case .respond(let streamID, let response): submit(response, on: streamID)
        case .resetStream(let streamID, let errorCode):
            submitted(
                "nghttp2_submit_rst_stream",
                nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode))
        case .goAway(let last, let errorCode, let debugData):
            submitted(
                "nghttp2_submit_goaway",
                nghttp2_submit_goaway(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, debugData, debugData.count))
        case .abort(let reason): abortConnection(reason)
        }
    }

    /// Hands the stream's request to the handler and its decision back to the machine, whose actions
    /// run after the ones already queued.
    private func callHandler(_ streamID: Int32) {
        guard let stream = stream(streamID) else { return }
        let request = HTTP2ServerRequest(
            method: stream.method, path: stream.path, authority: stream.authority, headers: stream.headers,
            body: stream.body, streamID: streamID, httpVersion: "2")
        stream.body = []
        let decision = handler.handle(request, context: context)
        let newLimit = context.pendingMaxConcurrentStreams
        context.pendingMaxConcurrentStreams = nil
        machine.handlerAnswered(
            streamID, with: decision, newMaxConcurrentStreams: newLimit, now: clock.now(), into: &actions)
    }

    private func submit(_ response: HTTP2ServerResponse, on streamID: Int32) {
        guard let stream = stream(streamID) else { return }
        let status = String(response.status)
        let headers = response.headers
        let hasBody = !response.body.isEmpty
        let length = hasBody ? String(response.body.count) : ""
        let count = 1 + headers.count + (hasBody ? 1 : 0)
        let field: (Int) -> (name: String, value: String, neverIndex: Bool) = { index in
            if index == 0 { return (":status", status, false) }
            if index <= headers.count {
                let header = headers[index - 1]
                return (header.name, header.value, header.neverIndex)
            }
            return ("content-length", length, false)
        }
        if hasBody {
            let source = BodySource(response.body)
            stream.response = source
            _ = H2Connection.withNameValues(count, field) { nva, count in
                var provider = H2Connection.dataProvider(for: source)
                return submitted(
                    "nghttp2_submit_response", nghttp2_submit_response(session, streamID, nva, count, &provider))
            }
        } else {
            _ = H2Connection.withNameValues(count, field) { nva, count in
                submitted("nghttp2_submit_response", nghttp2_submit_response(session, streamID, nva, count, nil))
            }
        }
    }
}
