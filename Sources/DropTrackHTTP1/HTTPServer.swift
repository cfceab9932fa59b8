internal import CMicroHTTPD
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 server over libmicrohttpd, bound to an IPv4 address (loopback by default): keep-alive, chunked
/// uploads, request-body limits, and Server-Sent Events through suspend/resume. Requests are handled on a pool of
/// worker threads, each running its own epoll loop.
public final class HTTPServer: Sendable {
    private let core: ServerCore

    /// Creates a server; nothing is bound until `start`.
    ///
    /// - Parameters:
    ///   - handler: answers every request, on the worker threads.
    ///   - maxBodyBytes: larger request bodies are answered 413 with
    ///     `{"error":{"code":"body_too_large","message":"…"}}` naming the limit, and the handler is not called.
    ///   - threads: worker threads (libmicrohttpd's thread pool).
    ///   - heartbeat: idle SSE streams get a `: ping` comment this often, so dead clients are found and freed.
    ///   - maximumQueuedEvents: events an SSE stream may hold for a slow client before it closes the stream.
    public init(
        handler: any HTTPHandler, maxBodyBytes: Int = 1 << 20, threads: Int = 4, heartbeat: Duration = .seconds(15),
        maximumQueuedEvents: Int = 1024
    ) {
        _ = ignoreSIGPIPEOnce
        core = ServerCore(
            handler: handler, maxBodyBytes: maxBodyBytes, threads: threads, heartbeat: heartbeat,
            maximumQueuedEvents: maximumQueuedEvents)
    }

    deinit { core.stop() }

    /// Binds an IPv4 address (port 0 picks a free one) and serves; returns the bound port. Throws an error naming
    /// the address when it cannot bind. A server starts once: starting it again, even after `stop()`, throws.
    @discardableResult
    public func start(host: String = "127.0.0.1", port: Int) throws -> Int {
        try core.start(host: host, port: port)
    }

    /// The bound port once started, else 0.
    public var port: Int { core.port }

    /// Stops accepting new connections (they are refused) but lets requests in flight, and the keep-alive
    /// connections they came on, finish: for graceful shutdown.
    public func stopAccepting() { core.stopAccepting() }

    /// Closes every SSE stream, resumes suspended connections, and stops the daemon, closing every connection.
    /// Waits for handlers still running. Idempotent. Must not be called from a handler (it joins their threads).
    public func stop() { core.stop() }

    /// Open SSE streams (for metrics and tests). A stream counts until its connection is gone.
    public var openEventStreams: Int { core.streams.count }
}

/// Set once per process: a peer that has closed its socket must not kill the process on write.
private let ignoreSIGPIPEOnce: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

/// Per-request state between libmicrohttpd's access-handler calls, owned by `*con_cls` from the first call until
/// the request-completed callback.
private final class RequestContext {
    var body: [UInt8] = []
    var tooLarge = false
    var answered = false
}

/// What the daemon's callbacks reach through their context pointer. The daemon holds it retained from `start` to
/// `stop`, so the public `HTTPServer` can be released (and stop the daemon in `deinit`) while callbacks run.
final class ServerCore: Sendable {
    let handler: any HTTPHandler
    let maxBodyBytes: Int
    let threads: Int
    let heartbeat: Duration
    let maximumQueuedEvents: Int
    let streams = EventStreamRegistry()

    /// Idle keep-alive connections, and clients that stop reading, are closed after this long.
    static let connectionTimeoutSeconds: UInt32 = 30
    static let connectionLimit: UInt32 = 1000

    private enum Phase { case idle, running, stopped }

    private struct State {
        var phase = Phase.idle
        var daemon: DaemonHandle?
        /// The daemon's callbacks hold `self` retained (`passRetained` in `start`) until the daemon has stopped.
        var retainedByDaemon = false
        var port = 0
        var quiesced = false
        var timer: HeartbeatTimer?
    }

    /// libmicrohttpd's daemon functions are thread-safe.
    private struct DaemonHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Dispatch sources may be cancelled from any thread.
    private struct HeartbeatTimer: @unchecked Sendable {
        let source: any DispatchSourceTimer
    }

    private let state = Mutex(State())

    init(handler: any HTTPHandler, maxBodyBytes: Int, threads: Int, heartbeat: Duration, maximumQueuedEvents: Int) {
        self.handler = handler
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.threads = min(max(1, threads), 256)
        self.heartbeat = heartbeat
        self.maximumQueuedEvents = maximumQueuedEvents
    }

    var port: Int { state.withLock { $0.port } }

    func start(host: String, port: Int) throws -> Int {
        let address = "\(host):\(port)"
        guard (0...65535).contains(port) else { throw HTTPServerError("cannot bind \(address): no such port") }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = UInt16(port).bigEndian
        guard inet_pton(AF_INET, host, &socketAddress.sin_addr) == 1 else {
            throw HTTPServerError("cannot bind \(address): not an IPv4 address")
        }
        try state.withLock { state in
            guard state.phase == .idle else {
                throw HTTPServerError("cannot bind \(address): this server was already started (a server starts once)")
            }
            state.phase = .running
        }
        let retained = Unmanaged.passRetained(self).toOpaque()
        errno = 0
        let daemon = cmhd_start_daemon(
            &socketAddress, UInt32(threads), Self.connectionLimit, Self.connectionTimeoutSeconds, accessCallback,
            retained, requestCompletedCallback, retained)
        guard let daemon = daemon.map(DaemonHandle.init) else {
            let code = errno
            Unmanaged<ServerCore>.fromOpaque(retained).release()
            state.withLock { $0.phase = .idle }
            let reason = code == 0 ? "libmicrohttpd could not start" : String(cString: strerror(code))
            throw HTTPServerError("cannot bind \(address): \(reason)")
        }
        let bound = Int(cmhd_bound_port(daemon.pointer))
        let timer = makeHeartbeatTimer()
        state.withLock { state in
            state.daemon = daemon
            state.retainedByDaemon = true
            state.port = bound
            state.timer = timer
        }
        timer.source.resume()
        return bound
    }

    private func makeHeartbeatTimer() -> HeartbeatTimer {
        let (seconds, attoseconds) = heartbeat.components
        let nanoseconds = max(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, 10_000_000)
        let interval = DispatchTimeInterval.nanoseconds(Int(clamping: nanoseconds))
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(5))
        timer.setEventHandler { [streams] in
            for stream in streams.all { stream.heartbeat() }
        }
        return HeartbeatTimer(source: timer)
    }

    func stopAccepting() {
        let listenSocket: Int32 = state.withLock { state in
            guard let daemon = state.daemon, !state.quiesced else { return -1 }
            state.quiesced = true
            return MHD_quiesce_daemon(daemon.pointer)
        }
        // libmicrohttpd hands the listening socket back; closing it makes new connections fail at once instead of
        // waiting in the backlog.
        if listenSocket >= 0 { close(listenSocket) }
    }

    func stop() {
        let (daemon, retained, timer) = state.withLock { state in
            defer {
                state.phase = .stopped
                state.daemon = nil
                state.retainedByDaemon = false
                state.timer = nil
            }
            return (state.daemon, state.retainedByDaemon, state.timer)
        }
        timer?.source.cancel()
        // Closed streams never suspend again, and closing resumes the suspended ones: libmicrohttpd aborts the
        // process if it is stopped with a connection still suspended.
        for stream in streams.beginStopping() { stream.close() }
        if let daemon { MHD_stop_daemon(daemon.pointer) }
        if retained { Unmanaged.passUnretained(self).release() }
    }

    // MARK: - Requests, on the worker threads

    fileprivate func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let existing = requestContext.pointee else {
            // The first call carries only the headers. Answering now would make libmicrohttpd close the
            // connection after the response, so normally the answer waits for the next call. A body declared too
            // large is the exception: refusing it before reading it (and before `100 Continue`) is worth the
            // connection.
            let context = RequestContext()
            requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
            if declaredBodyTooLarge(connection) {
                context.answered = true
                return queue(bodyTooLarge(), on: connection)
            }
            return .YES
        }
        let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
        let count = uploadSize.pointee
        if count > 0 {
            uploadSize.pointee = 0
            guard !context.answered && !context.tooLarge else { return .YES }
            if context.body.count + count > maxBodyBytes {
                // Chunked bodies give no size up front: read and drop the rest, then answer 413.
                context.tooLarge = true
                context.body = []
            } else if let uploadData {
                context.body.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: count))
            }
            return .YES
        }
        guard !context.answered else { return .YES }
        context.answered = true
        if context.tooLarge { return queue(bodyTooLarge(), on: connection) }
        var request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/")
        for (name, value) in Self.values(of: connection, kind: .GET_ARGUMENT_KIND) { request.query[name] = value }
        for (name, value) in Self.values(of: connection, kind: .HEADER_KIND) {
            let name = name.lowercased()
            if let earlier = request.headers[name] {
                request.headers[name] = earlier + ", " + value
            } else {
                request.headers[name] = value
            }
        }
        request.body = context.body
        context.body = []
        switch handler.handle(request) {
        case .response(let response):
            return queue(response, on: connection)
        case .eventStream(let start):
            return startEventStream(start, on: connection)
        }
    }

    private func declaredBodyTooLarge(_ connection: OpaquePointer) -> Bool {
        guard let value = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") else {
            return false
        }
        let text = String(cString: value).trimmingASCIISpaces
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        // All digits but too long for Int is larger than any limit.
        guard let declared = Int(text) else { return true }
        return declared > maxBodyBytes
    }

    private func bodyTooLarge() -> HTTPResponse {
        .json(
            413,
            Array(
                #"{"error":{"code":"body_too_large","message":"request body exceeds the limit of \#(maxBodyBytes) bytes"}}"#
                    .utf8))
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        // 1xx cannot be a final answer (libmicrohttpd sends a 101 and then leaves the connection hanging), and
        // libmicrohttpd refuses statuses outside three digits: the client gets a 500 instead.
        if (200...999).contains(response.status), Self.queue(response, on: connection) == .YES { return .YES }
        let fallback = HTTPResponse.json(
            500, Array(#"{"error":{"code":"internal","message":"the handler returned an invalid response"}}"#.utf8))
        return Self.queue(fallback, on: connection)
    }

    private static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        // libmicrohttpd refuses headers it manages itself (Content-Length) and ones with line breaks; those are
        // dropped rather than failing the response.
        for header in response.headers { _ = MHD_add_response_header(created, header.name, header.value) }
        let result = MHD_queue_response(connection, UInt32(response.status), created)
        MHD_destroy_response(created)
        return result
    }

    private func startEventStream(_ start: @Sendable (EventStream) -> Void, on connection: OpaquePointer)
        -> MHD_Result
    {
        let stream = EventStream(
            connection: ConnectionHandle(pointer: connection), maximumQueued: maximumQueuedEvents, registry: streams)
        streams.add(stream)
        // The response owns one reference, given back in its free callback, which libmicrohttpd calls exactly once.
        let retained = Unmanaged.passRetained(stream).toOpaque()
        guard
            let response = MHD_create_response_from_callback(
                cmhd_size_unknown(), 4096, eventStreamReader, retained, eventStreamFreed)
        else {
            Unmanaged<EventStream>.fromOpaque(retained).release()
            stream.responseFreed()
            return .NO
        }
        _ = MHD_add_response_header(response, "Content-Type", "text/event-stream")
        _ = MHD_add_response_header(response, "Cache-Control", "no-cache")
        let result = MHD_queue_response(connection, 200, response)
        // Drops our reference; if the queueing failed this frees the response and runs the free callback.
        MHD_destroy_response(response)
        if result == .YES { start(stream) }
        return result
    }

    /// Query arguments or headers in arrival order, decoded by libmicrohttpd. Sized strings keep names and values
    /// with `%00` in them whole.
    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(String, String)] {
        var pairs: [(String, String)] = []
        withUnsafeMutablePointer(to: &pairs) { pointer in
            _ = MHD_get_connection_values_n(connection, kind, collectValue, UnsafeMutableRawPointer(pointer))
        }
        return pairs
    }
}

extension String {
    fileprivate var trimmingASCIISpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}

// MARK: - C callbacks. They capture nothing: context travels through libmicrohttpd's `void *` arguments.

private let accessCallback: MHD_AccessHandlerCallback = {
    context, connection, url, method, _, uploadData, uploadSize, requestContext in
    guard let context, let connection, let uploadSize, let requestContext else { return .NO }
    return Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().access(
        connection, url: url, method: method, uploadData: uploadData, uploadSize: uploadSize,
        requestContext: requestContext)
}

/// Called once per request however it ended (answered, client gone, daemon stopping): releases its context.
private let requestCompletedCallback: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
    guard let requestContext, let pointer = requestContext.pointee else { return }
    requestContext.pointee = nil
    Unmanaged<RequestContext>.fromOpaque(pointer).release()
}

private let collectValue: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
    guard let context, let key else { return .YES }
    let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
    let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
    context.assumingMemoryBound(to: [(String, String)].self).pointee.append((name, text ?? ""))
    return .YES
}

private let eventStreamReader: MHD_ContentReaderCallback = { context, _, buffer, capacity in
    guard let context, let buffer else { return cmhd_reader_end_with_error() }
    return Unmanaged<EventStream>.fromOpaque(context).takeUnretainedValue().read(
        into: UnsafeMutableRawPointer(buffer), capacity: capacity)
}

private let eventStreamFreed: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    Unmanaged<EventStream>.fromOpaque(context).takeRetainedValue().responseFreed()
}
