// One accepted connection of `HTTP2Server`: the nghttp2 server session, its streams, the handler's actions
// (answers, delayed answers, GOAWAY, resets) and the timers of delayed answers.
internal import CNGHTTP2
import DropTrackCore
import DropTrackCrypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The loop-thread side of a server connection.
final class ServerSession: H2Connection {
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
        var answered = false

        /// Ready for another request; arrays keep their capacity when nothing else holds them.
        func reset() {
            method = ""
            path = ""
            authority = ""
            headers.removeAll(keepingCapacity: true)
            body.removeAll(keepingCapacity: true)
            response = nil
            answered = false
        }
    }

    /// Closed streams kept for reuse: a request then costs no allocation for its stream object.
    private var spareStreams: [Stream] = []

    private unowned let server: HTTP2Server
    private let handler: any HTTP2ServerHandler
    let context: HTTP2ServerConnectionContext
    private var streams: [Int32: Stream] = [:]
    private var timers: [(at: ContinuousClock.Instant, streamID: Int32, response: HTTP2ServerResponse)] = []
    private var goingAway = false

    init(
        fd: Int32, tls: TLSStream, wakeup: Wakeup, server: HTTP2Server, handler: any HTTP2ServerHandler,
        context: HTTP2ServerConnectionContext
    ) {
        self.server = server
        self.handler = handler
        self.context = context
        super.init(fd: fd, tls: tls, wakeup: wakeup)
    }

    override func makeSession(callbacks: OpaquePointer, userData: UnsafeMutableRawPointer) -> OpaquePointer? {
        var session: OpaquePointer? = nil
        guard nghttp2_session_server_new(&session, callbacks, userData) == 0 else { return nil }
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: context.maxConcurrentStreams),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        // Both fail only without memory; a session that cannot send its SETTINGS is no session.
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0,
            nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20) == 0
        else {
            nghttp2_session_del(session)
            return nil
        }
        context.pendingMaxConcurrentStreams = nil
        return session
    }

    override func processCommands() {
        if server.isStopping && !goingAway {
            goingAway = true
            submitted(
                "nghttp2_submit_goaway",
                nghttp2_submit_goaway(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session),
                    NGHTTP2_NO_ERROR.rawValue, nil, 0))
        }
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
        if endStream { dispatch(streamID) }
    }

    override func onDataComplete(streamID: Int32) { dispatch(streamID) }

    override func onStreamClose(streamID: Int32, errorCode: UInt32) {
        if let stream = streams.removeValue(forKey: streamID), spareStreams.count < 256 {
            stream.reset()
            spareStreams.append(stream)
        }
        if lastStream?.id == streamID { lastStream = nil }
    }

    private func dispatch(_ streamID: Int32) {
        guard let stream = stream(streamID), !goingAway else { return }
        let request = HTTP2ServerRequest(
            method: stream.method, path: stream.path, authority: stream.authority, headers: stream.headers,
            body: stream.body, streamID: streamID, httpVersion: "2")
        stream.body = []
        let action = handler.handle(request, context: context)
        if let newLimit = context.pendingMaxConcurrentStreams {
            context.pendingMaxConcurrentStreams = nil
            var entry = nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: newLimit)
            submitted(
                "nghttp2_submit_settings",
                nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1))
        }
        switch action {
        case .respond(let response): submit(response, on: streamID)
        case .respondAfter(let delay, let response): timers.append((.now + delay, streamID, response))
        case .goAway(let errorCode, let debugData):
            goingAway = true
            let last = max(0, streamID - 2)
            for (id, _) in streams where id > last {
                guard
                    submitted(
                        "nghttp2_submit_rst_stream",
                        nghttp2_submit_rst_stream(
                            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_REFUSED_STREAM.rawValue))
                else { return }
            }
            submitted(
                "nghttp2_submit_goaway",
                nghttp2_submit_goaway(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, debugData, debugData.count))
        case .resetConnection: abortConnection("connection reset on purpose")
        case .resetStream(let errorCode):
            submitted(
                "nghttp2_submit_rst_stream",
                nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode))
        }
    }

    private func submit(_ response: HTTP2ServerResponse, on streamID: Int32) {
        guard let stream = stream(streamID), !stream.answered else { return }
        stream.answered = true
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

    override func nextTimerDeadline() -> ContinuousClock.Instant? { timers.map(\.at).min() }

    override func fireTimers(now: ContinuousClock.Instant) {
        let due = timers.filter { $0.at <= now }
        timers.removeAll { $0.at <= now }
        for timer in due { submit(timer.response, on: timer.streamID) }
    }

    override func shouldClose() -> Bool { goingAway && streams.isEmpty && timers.isEmpty }

    override var lingersOnClose: Bool { goingAway }
}
