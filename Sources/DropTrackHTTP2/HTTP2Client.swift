import DropTrackCore
import DropTrackCrypto
import Foundation
import Synchronization

/// An HTTP/2 client for one origin: long-lived TLS connections, each multiplexing up to the
/// server's `SETTINGS_MAX_CONCURRENT_STREAMS`, with a new connection opened only when every open
/// one is full. Every request has a deadline. Requests the server never processed (GOAWAY,
/// refused streams, a connection that failed to come up) are sent again on another connection,
/// with backoff between connection attempts.
public final class HTTP2Client: Sendable {
    /// How the client connects and paces itself.
    public struct Configuration: Sendable {
        /// The host to connect to (name or IP literal).
        public var host: String
        /// The TCP port.
        public var port: Int
        /// The name checked against the server certificate and sent as SNI; defaults to `host`.
        public var serverName: String?
        /// The most connections opened to this origin.
        public var maxConnections: Int
        /// Streams assumed per connection before a response proves the real limit.
        public var assumedInitialStreams: Int
        /// Time allowed for TCP connect plus the TLS handshake.
        public var connectTimeout: Duration
        /// Deadline for a request when the caller gives none.
        public var requestTimeout: Duration
        /// Send a PING after this long without traffic.
        public var pingInterval: Duration
        /// Drop the connection when a PING is not answered within this.
        public var pingTimeout: Duration
        /// First wait after a failed connection attempt; doubles up to `maxReconnectDelay`.
        public var reconnectDelay: Duration
        /// Longest wait between connection attempts.
        public var maxReconnectDelay: Duration

        /// Creates a configuration; every field but the origin has a default.
        public init(
            host: String, port: Int, serverName: String? = nil, maxConnections: Int = 4,
            assumedInitialStreams: Int = 100,
            connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(10),
            pingInterval: Duration = .seconds(60), pingTimeout: Duration = .seconds(10),
            reconnectDelay: Duration = .milliseconds(100), maxReconnectDelay: Duration = .seconds(10)
        ) {
            self.host = host
            self.port = port
            self.serverName = serverName
            self.maxConnections = maxConnections
            self.assumedInitialStreams = assumedInitialStreams
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.pingInterval = pingInterval
            self.pingTimeout = pingTimeout
            self.reconnectDelay = reconnectDelay
            self.maxReconnectDelay = maxReconnectDelay
        }
    }

    /// The configuration this client was made with.
    public let configuration: Configuration
    private let tls: TLSContext
    private let state: Mutex<ConnectionPoolStateMachine<ClientConnectionHandle>>
    /// The time, read in one place so the pool's decisions can be replayed with another.
    private let now: @Sendable () -> ContinuousClock.Instant
    private let logger: Logger
    private let peerClock: PeerClockWatch

    /// Creates a client. No connection is opened until the first request.
    public convenience init(configuration: Configuration, tls: TLSContext, logger: Logger = .disabled) {
        self.init(configuration: configuration, tls: tls, logger: logger, now: { .now })
    }

    /// Creates a client reading the time from `now`: the pool and every connection's deadlines and
    /// PING timers then follow that clock (tests move it by hand).
    init(
        configuration: Configuration, tls: TLSContext, logger: Logger = .disabled,
        now: @escaping @Sendable () -> ContinuousClock.Instant
    ) {
        Socket.ignoreSIGPIPE()
        self.configuration = configuration
        self.tls = tls
        self.logger = logger.with(["http2.origin": "\(configuration.host):\(configuration.port)"])
        peerClock = PeerClockWatch(logger: self.logger)
        self.now = now
        state = Mutex(
            ConnectionPoolStateMachine(
                policy: .init(
                    maxConnections: configuration.maxConnections, reconnectDelay: configuration.reconnectDelay,
                    maxReconnectDelay: configuration.maxReconnectDelay, requestTimeout: configuration.requestTimeout),
                now: now()))
    }

    /// The peer's clock minus this machine's, in seconds, from the `Date` header of its latest
    /// response that had one (whole seconds, so ±1 s); nil before any.
    public var peerClockOffset: Double? { peerClock.offset }

    /// Connections opened over the client's life (for tests and metrics).
    public var connectionsOpened: Int { state.withLock { $0.connectionsOpened } }

    /// Why the most recent connections ended or failed to open, oldest first (at most 16).
    public var connectionEndReasons: [String] { state.withLock { $0.endedReasons } }

    /// Connections currently open or opening.
    public var openConnections: Int { state.withLock { $0.connections.count } }

    /// The stream limit the pool counts on for each open connection: the server's
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` once a response has proved it.
    public var streamLimits: [Int] { state.withLock { $0.connections.map(\.currentCapacity) } }

    /// Sends a request and calls `completion` (on a connection thread) with the response or error.
    public func execute(
        _ request: HTTP2Request, timeout: Duration? = nil,
        completion: @escaping @Sendable (Result<HTTP2Response, HTTP2ClientError>) -> Void
    ) {
        let deadline = now() + (timeout ?? configuration.requestTimeout)
        let peerClock = self.peerClock
        dispatch(
            PendingRequest(
                request: request, deadline: deadline,
                completion: { result in
                    if case .success(let response) = result { peerClock.observe(response.headers) }
                    completion(result)
                }))
    }

    /// Sends a request and waits for the response.
    public func execute(_ request: HTTP2Request, timeout: Duration? = nil) async throws(HTTP2ClientError)
        -> HTTP2Response
    {
        let result: Result<HTTP2Response, HTTP2ClientError> = await withCheckedContinuation { continuation in
            execute(request, timeout: timeout) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Takes connection `id` (a response's `connection`) out of use: requests from now on go to
    /// another, or a new, connection; those in flight on it finish, then it closes. For an answer that
    /// spoils the connection for what follows (APNs allows one provider token change per connection
    /// per 20 minutes). Returns false when it is gone or was retired already.
    @discardableResult
    public func retire(connection id: Int) -> Bool {
        guard let handle = state.withLock({ $0.connections.first { $0.id == id } }), handle.retire() else {
            return false
        }
        logger.info("http2.connection_retired", ["connection": String(id)])
        return true
    }

    /// Closes every connection; queued and later requests fail with `.shutdown`.
    public func shutdown() {
        let (handles, parked) = state.withLock { $0.shutdown() }
        for pending in parked {
            pending.completion(.failure(HTTP2ClientError(.shutdown, "the client was shut down", unprocessed: true)))
        }
        for handle in handles {
            for pending in handle.closeInbox() {
                pending.completion(.failure(HTTP2ClientError(.shutdown, "the client was shut down", unprocessed: true)))
            }
            handle.setPhase(.draining)
            handle.wakeup.signal()
        }
    }

    private enum Choice {
        case use(ClientConnectionHandle)
        case open(ClientConnectionHandle)
        case parked(scheduleRetryAt: ContinuousClock.Instant?)
        case fail(HTTP2ClientError)
    }

    private func dispatch(_ pending: PendingRequest) {
        while true {
            let choice: Choice = state.withLock { pool in
                switch pool.dispatch(pending, now: now()) {
                case .use(let handle): return .use(handle)
                case .parked(let retryAt): return .parked(scheduleRetryAt: retryAt)
                case .fail(let error): return .fail(error)
                case .open(let id):
                    guard
                        let handle = try? ClientConnectionHandle(
                            id: id, assumedCapacity: configuration.assumedInitialStreams)
                    else {
                        return .fail(
                            HTTP2ClientError(.connectFailed, "cannot create a wake-up pipe", unprocessed: true))
                    }
                    pool.opened(handle)
                    return .open(handle)
                }
            }
            switch choice {
            case .use(let handle):
                if handle.enqueue(pending) { return }
            case .open(let handle):
                _ = handle.enqueue(pending)
                startConnection(handle)
                return
            case .parked(let retryAt):
                if let retryAt { scheduleParkedRetry(at: retryAt) }
                return
            case .fail(let error):
                pending.completion(.failure(error))
                return
            }
        }
    }

    private func scheduleParkedRetry(at instant: ContinuousClock.Instant) {
        let delay = max(Duration.zero, instant - now())
        let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
            let (failed, retry) = state.withLock { $0.retryDue(now: now()) }
            for (pending, error) in failed { pending.completion(.failure(error)) }
            for pending in retry { dispatch(pending) }
        }
    }

    private func requeue(_ requests: [PendingRequest]) {
        let now = now()
        for pending in requests {
            if let error = state.withLock({ $0.requeueVerdict(pending, now: now) }) {
                pending.completion(.failure(error))
            } else {
                dispatch(pending)
            }
        }
    }

    private func connectionFailed(_ handle: ClientConnectionHandle, _ error: HTTP2ClientError) {
        let delay = state.withLock {
            $0.connectionFailed(handle, error: error, now: now(), jitter: Double.random(in: 0.75...1.25))
        }
        logger.warning("http2.connect_failed", ["error": error.message, "retry_in": "\(delay)"])
        let queued = handle.closeInbox()
        handle.setPhase(.closed)
        handle.load.subtract(queued.count, ordering: .relaxed)
        requeue(queued)
    }

    private func startConnection(_ handle: ClientConnectionHandle) {
        let configuration = self.configuration
        let tls = self.tls
        let events = ClientConnectionEvents(
            unprocessed: { [weak self] in self?.requeue($0) },
            ready: { [weak self] _ in self?.state.withLock { $0.connectionReady() } },
            closed: { [weak self] handle, reason in
                guard let self else { return }
                // Requests parked while every connection was draining get the room this one leaves.
                for pending in state.withLock({ $0.connectionClosed(handle, reason: reason) }) { dispatch(pending) }
            })
        // The connection reads the pool's time, so one injected clock drives both.
        let clock = ConnectionClock(now: now)
        let thread = Thread { [weak self] in
            let serverName = configuration.serverName ?? configuration.host
            let fd: Int32
            do {
                fd = try Socket.connect(
                    host: configuration.host, port: configuration.port, timeout: configuration.connectTimeout)
            } catch {
                self?.connectionFailed(handle, HTTP2ClientError(.connectFailed, "\(error)", unprocessed: true))
                return
            }
            let stream: TLSStream
            do {
                stream = try TLSStream(context: tls, fd: fd, serverName: serverName)
            } catch {
                Socket.closeDiscardingError(fd)
                self?.connectionFailed(handle, HTTP2ClientError(.connectFailed, "\(error)", unprocessed: true))
                return
            }
            let session = ClientSession(
                fd: fd, tls: stream, handle: handle, events: events,
                authority: configuration.port == 443 ? serverName : "\(serverName):\(configuration.port)",
                configuration: configuration, clock: clock)
            if let failure = session.handshake(timeout: configuration.connectTimeout) {
                session.closeSocket()
                self?.connectionFailed(
                    handle,
                    HTTP2ClientError(
                        .connectFailed, "\(configuration.host):\(configuration.port): \(failure)", unprocessed: true))
                return
            }
            guard session.tls.negotiatedProtocol == "h2" else {
                session.closeSocket()
                self?.connectionFailed(
                    handle,
                    HTTP2ClientError(
                        .protocolNotNegotiated,
                        "\(configuration.host):\(configuration.port) did not agree to HTTP/2 (ALPN h2)",
                        unprocessed: true))
                return
            }
            self?.logger.debug("http2.connected", ["connection": String(handle.id)])
            let reason = session.run()
            self?.logger.debug("http2.closed", ["connection": String(handle.id), "reason": reason])
        }
        thread.name = "h2-client-\(handle.id)"
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// Reads the peer's clock from its responses' `Date` headers. A provider judges what this machine
/// signs (a JWT's `iat`) by its own clock, so a machine clock minutes off makes every request fail
/// with an expired or invalid token; the offset says why (DT-064). The header changes once a
/// second, so it is parsed at most that often.
final class PeerClockWatch: Sendable {
    /// An offset beyond this is logged as a warning.
    static let warningSeconds = 300.0

    private let logger: Logger
    private let state = Mutex<(header: String, offset: Double?, warned: Bool)>(("", nil, false))
    /// The second last looked at: every connection thread of a busy client answers many times a
    /// second, and only the first answer of each second takes the lock.
    private let lastSecond = Atomic<Int64>(0)

    init(logger: Logger) { self.logger = logger }

    var offset: Double? { state.withLock { $0.offset } }

    func observe(_ headers: [HTTPHeader]) {
        let now = Date()
        let second = Int64(now.timeIntervalSince1970)
        guard lastSecond.exchange(second, ordering: .relaxed) != second, let header = headers.value(of: "date")
        else { return }
        let change: (offset: Double, beyond: Bool)? = state.withLock { state in
            guard header != state.header else { return nil }
            state.header = header
            guard let peer = HTTPDate.parse(header) else { return nil }
            let offset = peer.timeIntervalSince(now).rounded()
            state.offset = offset
            let beyond = abs(offset) > Self.warningSeconds
            defer { state.warned = beyond }
            return beyond == state.warned ? nil : (offset, beyond)
        }
        guard let change else { return }
        if change.beyond {
            logger.warning(
                "http2.peer_clock_offset",
                [
                    "offset_seconds": String(Int(change.offset)),
                    "fix":
                        "this machine's clock differs from the server's by more than 5 minutes; run NTP (chrony or systemd-timesyncd): providers reject tokens signed with a wrong time",
                ])
        } else {
            logger.info("http2.peer_clock_offset_recovered", ["offset_seconds": String(Int(change.offset))])
        }
    }
}
