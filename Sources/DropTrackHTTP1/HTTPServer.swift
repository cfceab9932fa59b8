internal import CMicroHTTPD
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 server over libmicrohttpd, bound to an IPv4 address (loopback by default): keep-alive, chunked
/// uploads, request-body limits, and Server-Sent Events through suspend/resume. Requests are handled on a pool of
/// worker threads, each running its own epoll loop.
///
/// Hardened against hostile clients: connections are capped in all and per client address (`HTTPServerLimits`),
/// slow senders are cut by header and body deadlines, requests whose framing a proxy could read differently
/// (`Content-Length` with `Transfer-Encoding`, repeated `Content-Length`, a transfer coding other than `chunked`,
/// bad header names, bare LF line ends, HTTP/1.1 without `Host`) are answered 400 and their connection closed, and
/// `stop()` returns within a deadline even when a handler is stuck.
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
    ///   - limits: connection caps, request deadlines and the stop deadline; the defaults are documented on
    ///     `HTTPServerLimits`.
    public init(
        handler: any HTTPHandler, maxBodyBytes: Int = 1 << 20, threads: Int = 4, heartbeat: Duration = .seconds(15),
        maximumQueuedEvents: Int = 1024, limits: HTTPServerLimits = HTTPServerLimits()
    ) {
        _ = ignoreSIGPIPEOnce
        core = ServerCore(
            handler: handler, maxBodyBytes: maxBodyBytes, threads: threads, heartbeat: heartbeat,
            maximumQueuedEvents: maximumQueuedEvents, limits: limits)
    }

    deinit { _ = core.stop(deadline: core.connections.limits.stopDeadline) }

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

    /// `stop(deadline:)` with the limits' `stopDeadline` (10 s by default).
    public func stop() { _ = core.stop(deadline: core.connections.limits.stopDeadline) }

    /// Closes every SSE stream, resumes suspended connections, stops accepting (new connections are refused), and
    /// stops the daemon, closing every connection. Waits for handlers still running, but no longer than `deadline`:
    /// past it, every connection still open is shut down (its client sees the end) and this returns false. A handler
    /// still running then is abandoned, not interrupted: its thread runs on, its answer goes nowhere, and the daemon
    /// finishes stopping when it returns (`droptrack serve` exits meanwhile, which ends it). Idempotent (a second
    /// call returns true at once). Must not be called from a handler (it joins their threads).
    @discardableResult
    public func stop(deadline: Duration) -> Bool { core.stop(deadline: deadline) }

    /// Connections open now, refused ones aside (for metrics and tests).
    public var openConnections: Int { core.connections.openConnections }

    /// Open SSE streams (for metrics and tests). A stream counts until its connection is gone.
    public var openEventStreams: Int { core.streams.count }
}

/// Set once per process: a peer that has closed its socket must not kill the process on write.
private let ignoreSIGPIPEOnce: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

/// What the daemon's callbacks reach through their context pointer. The daemon holds it retained from `start` to
/// `stop`, so the public `HTTPServer` can be released (and stop the daemon in `deinit`) while callbacks run.
final class ServerCore: Sendable {
    let handler: any HTTPHandler
    let maxBodyBytes: Int
    let threads: Int
    let heartbeat: Duration
    let maximumQueuedEvents: Int
    let streams = EventStreamRegistry()
    let connections: ConnectionGuard

    /// Clients that stop reading a response are closed after this long without progress (the header deadline
    /// closes idle keep-alive connections sooner).
    static let connectionTimeoutSeconds: UInt32 = 30
    /// MHD_OPTION_STRICT_FOR_CLIENT stays 0: at 1, libmicrohttpd answers a missing Host itself (HTML, before the
    /// access handler); `RequestChecks` covers what it would and more, with JSON answers.
    static let strictness: Int32 = 0

    private enum Phase { case idle, running, stopped }

    private struct State {
        var phase = Phase.idle
        var daemon: DaemonHandle?
        /// The daemon's callbacks hold `self` retained (`passRetained` in `start`) until the daemon has stopped.
        var retainedByDaemon = false
        var port = 0
        var quiesced = false
        /// The listening socket libmicrohttpd handed back when quiesced, shut down but still open: it is closed
        /// only once the daemon has stopped (see `stopAccepting`).
        var quiescedSocket: Int32 = -1
        var timer: HeartbeatTimer?
        var sweep: HeartbeatTimer?
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

    init(
        handler: any HTTPHandler, maxBodyBytes: Int, threads: Int, heartbeat: Duration, maximumQueuedEvents: Int,
        limits: HTTPServerLimits
    ) {
        self.handler = handler
        self.connections = ConnectionGuard(limits: limits)
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
            &socketAddress, UInt32(threads), hardConnectionLimit, Self.connectionTimeoutSeconds, Self.strictness,
            accessCallback, retained, requestCompletedCallback, retained, connectionNotifyCallback, retained,
            targetCallback, retained)
        guard let daemon = daemon.map(DaemonHandle.init) else {
            let code = errno
            Unmanaged<ServerCore>.fromOpaque(retained).release()
            state.withLock { $0.phase = .idle }
            let reason = code == 0 ? "libmicrohttpd could not start" : String(cString: strerror(code))
            throw HTTPServerError("cannot bind \(address): \(reason)")
        }
        let bound = Int(cmhd_bound_port(daemon.pointer))
        let timer = makeHeartbeatTimer()
        let sweep = HeartbeatTimer(source: connections.makeSweepTimer())
        state.withLock { state in
            state.daemon = daemon
            state.retainedByDaemon = true
            state.port = bound
            state.timer = timer
            state.sweep = sweep
        }
        timer.source.resume()
        sweep.source.resume()
        return bound
    }

    /// libmicrohttpd's own limit sits above the cap, with room for the connections being refused: reaching it
    /// would leave new connections in the backlog instead of refusing them.
    private var hardConnectionLimit: UInt32 {
        let cap = connections.limits.maximumConnections
        return UInt32(clamping: cap + max(cap / 4, 64 * threads))
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
        state.withLock { state in
            guard let daemon = state.daemon, !state.quiesced else { return }
            state.quiesced = true
            let listenSocket = MHD_quiesce_daemon(daemon.pointer)
            guard listenSocket >= 0 else { return }
            // libmicrohttpd hands the listening socket back. Shutting it down makes new connections fail at once
            // instead of waiting in the backlog. It is not closed yet: a worker thread that saw the quiesce late
            // still removes it from its epoll set, and on a closed descriptor that fails with EBADF, which
            // libmicrohttpd treats as fatal ("Failed to remove listen FD from epoll set") and aborts the process.
            _ = shutdown(listenSocket, Int32(SHUT_RDWR))
            state.quiescedSocket = listenSocket
        }
    }

    func stop(deadline: Duration) -> Bool {
        // Refuse new connections first: the port is free even if the daemon takes until the deadline to stop.
        stopAccepting()
        let (daemon, retained, timers, listenSocket) = state.withLock { state in
            defer {
                state.phase = .stopped
                state.daemon = nil
                state.retainedByDaemon = false
                state.timer = nil
                state.sweep = nil
                state.quiescedSocket = -1
            }
            return (state.daemon, state.retainedByDaemon, [state.timer, state.sweep], state.quiescedSocket)
        }
        for timer in timers { timer?.source.cancel() }
        // Closed streams never suspend again, and closing resumes the suspended ones: libmicrohttpd aborts the
        // process if it is stopped with a connection still suspended.
        for stream in streams.beginStopping() { stream.close() }
        guard let daemon else {
            if listenSocket >= 0 { close(listenSocket) }
            return true
        }
        // MHD_stop_daemon joins the worker threads, so a stuck handler would hold it forever: it runs on its own
        // thread, which also gives back the daemon's reference to `self` once the callbacks are over.
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global(qos: .userInitiated).async {
            MHD_stop_daemon(daemon.pointer)
            // The worker threads are joined: none can touch the listening socket any more.
            if listenSocket >= 0 { close(listenSocket) }
            if retained { Unmanaged.passUnretained(self).release() }
            stopped.signal()
        }
        if stopped.wait(timeout: .now() + Self.dispatchInterval(deadline)) == .success { return true }
        connections.shutDownAll()
        return false
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        // Capped at a day: longer is forever for a shutdown, and the arithmetic stays far from overflow.
        return .nanoseconds(Int(min(max(0, seconds), 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
