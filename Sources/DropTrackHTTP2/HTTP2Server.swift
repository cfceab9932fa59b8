internal import CNGHTTP2
import DropTrackCore
import DropTrackCrypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A request as the server handler sees it, whatever the HTTP version.
public struct HTTP2ServerRequest: Sendable {
    /// `:method`.
    public var method: String
    /// `:path`.
    public var path: String
    /// `:authority` (or `Host` over HTTP/1.1).
    public var authority: String
    /// Regular headers in arrival order, names lowercase. Repeats are kept, so duplicates can be refused.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: [UInt8]
    /// The stream the request came on (a counter over HTTP/1.1).
    public var streamID: Int32
    /// `"2"` or `"1.1"`.
    public var httpVersion: String

    /// Creates a request (tests build these to call handlers directly).
    public init(
        method: String, path: String, authority: String = "localhost", headers: [HTTPHeader] = [],
        body: [UInt8] = [], streamID: Int32 = 1, httpVersion: String = "2"
    ) {
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
        self.streamID = streamID
        self.httpVersion = httpVersion
    }
}

/// A response from a server handler.
public struct HTTP2ServerResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Response headers.
    public var headers: [HTTPHeader]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// What the server does with a request: answer now, answer later, or misbehave on purpose (the
/// emulators use the last three to inject faults).
public enum HTTP2ServerAction: Sendable {
    /// Answer now.
    case respond(HTTP2ServerResponse)
    /// Answer after a delay, without holding up other streams.
    case respondAfter(Duration, HTTP2ServerResponse)
    /// Send GOAWAY naming the previous stream as the last processed: this stream and every later
    /// one are refused (unprocessed) and the connection closes once earlier streams finish.
    case goAway(errorCode: UInt32, debugData: [UInt8])
    /// Drop the TCP connection at once (RST), answering nothing.
    case resetConnection
    /// Reset just this stream with an HTTP/2 error code.
    case resetStream(errorCode: UInt32)
}

/// Per-connection state a handler can keep and settings it can change. Touched only on the
/// connection's own thread.
public final class HTTP2ServerConnectionContext: @unchecked Sendable {
    /// A number unique within the server.
    public let id: Int
    /// The handler's own per-connection state.
    public var attachment: AnyObject?
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` advertised at the start; set it in `connectionOpened`.
    public var maxConcurrentStreams: UInt32
    /// The ALPN protocol (`h2` or `http/1.1`).
    public internal(set) var negotiatedProtocol: String = "h2"
    var pendingMaxConcurrentStreams: UInt32? = nil

    /// Creates a context; the server makes one per connection, and tests and benchmarks make
    /// their own to drive a handler directly.
    public init(id: Int, maxConcurrentStreams: UInt32) {
        self.id = id
        self.maxConcurrentStreams = maxConcurrentStreams
    }

    /// Advertises a new `SETTINGS_MAX_CONCURRENT_STREAMS` after the current request.
    public func updateMaxConcurrentStreams(_ value: UInt32) {
        guard value != maxConcurrentStreams else { return }
        maxConcurrentStreams = value
        pendingMaxConcurrentStreams = value
    }
}

/// Answers requests for an `HTTP2Server`. Called on connection threads, so it must be thread-safe.
public protocol HTTP2ServerHandler: Sendable {
    /// A connection was accepted and its TLS handshake finished.
    func connectionOpened(_ context: HTTP2ServerConnectionContext)
    /// Decides what to do with one complete request.
    func handle(_ request: HTTP2ServerRequest, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction
}

extension HTTP2ServerHandler {
    public func connectionOpened(_ context: HTTP2ServerConnectionContext) {}
}

/// An HTTP/2 server over TLS (ALPN h2, and http/1.1 when allowed), one thread per connection,
/// bound to a loopback address. Port 0 picks a free port, reported by `port`.
public final class HTTP2Server: Sendable {
    private let tls: TLSContext
    private let handler: any HTTP2ServerHandler
    private let maxConcurrentStreams: UInt32
    private let state = Mutex<(listenFD: Int32, port: Int, stopping: Bool, nextID: Int, live: [Int: Wakeup])>(
        (-1, 0, false, 0, [:]))
    private let pings = Atomic<Int>(0)
    /// The time `stop()` waits by and every connection's delayed answers follow, read in one place.
    private let clock: ConnectionClock

    /// Creates a server; `tls` decides which protocols ALPN offers.
    public convenience init(tls: TLSContext, handler: any HTTP2ServerHandler, maxConcurrentStreams: UInt32 = 1000) {
        self.init(tls: tls, handler: handler, maxConcurrentStreams: maxConcurrentStreams, clock: .continuous)
    }

    /// Creates a server reading the time from `clock`: `stop()`'s wait for connections to close and
    /// every connection's delayed answers then follow that clock (tests move it by hand).
    init(tls: TLSContext, handler: any HTTP2ServerHandler, maxConcurrentStreams: UInt32 = 1000, clock: ConnectionClock)
    {
        Socket.ignoreSIGPIPE()
        self.tls = tls
        self.handler = handler
        self.maxConcurrentStreams = maxConcurrentStreams
        self.clock = clock
    }

    /// The bound port, once started.
    public var port: Int { state.withLock { $0.port } }

    /// PING frames received from clients (keep-alive checks in tests).
    public var pingsReceived: Int { pings.load(ordering: .relaxed) }

    func countPing() { pings.add(1, ordering: .relaxed) }

    /// Binds and starts accepting; returns the bound port.
    @discardableResult
    public func start(host: String = "127.0.0.1", port: Int = 0) throws -> Int {
        let (fd, bound) = try Socket.listen(host: host, port: port)
        state.withLock {
            $0.listenFD = fd
            $0.port = bound
        }
        let thread = Thread { [self] in acceptLoop(fd) }
        thread.name = "h2-accept-\(bound)"
        thread.start()
        return bound
    }

    /// Stops accepting, closes every connection with GOAWAY, and returns.
    public func stop() {
        let (fd, live): (Int32, [Wakeup]) = state.withLock {
            $0.stopping = true
            let fd = $0.listenFD
            $0.listenFD = -1
            return (fd, Array($0.live.values))
        }
        if fd >= 0 {
            // shutdown wakes the accept loop's blocked accept; should it fail, the close below
            // makes accept fail too (EBADF), which also ends the loop.
            _ = try? syscall("shutdown(listen, SHUT_RDWR)") { shutdown(fd, Int32(SHUT_RDWR)) }
            Socket.closeDiscardingError(fd)
        }
        for wakeup in live { wakeup.signal() }
        // Give connection threads a moment (two seconds of the injected clock) to send GOAWAY and close.
        let deadline = clock.now() + Self.stopGrace
        while clock.now() < deadline && !state.withLock({ $0.live.isEmpty }) {
            usleep(5_000)
        }
    }

    /// How long `stop()` waits for connection threads to close before it returns anyway.
    static let stopGrace: Duration = .seconds(2)

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Connection threads still running (registered from the TLS handshake until their socket closes).
    var liveConnections: Int { state.withLock { $0.live.count } }

    private func acceptLoop(_ listenFD: Int32) {
        while true {
            let fd: Int32
            do {
                fd = try syscall("accept") { accept(listenFD, nil, nil) }
            } catch  where error.errno == ECONNABORTED {
                continue  // the client gave up before we accepted; the next one may not
            } catch {
                return  // the listening socket was shut down by stop(), or is unusable
            }
            if isStopping {
                Socket.closeDiscardingError(fd)
                return
            }
            do {
                try Socket.setNonBlocking(fd)
            } catch {
                // A blocking socket would stall its connection thread: refuse this one.
                Socket.closeDiscardingError(fd)
                continue
            }
            // Nagle only delays small frames; the connection works without TCP_NODELAY.
            try? Socket.setNoDelay(fd)
            let thread = Thread { [self] in serve(fd) }
            thread.name = "h2-server-conn"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        guard let wakeup = try? Wakeup(), let stream = try? TLSStream(context: tls, fd: fd) else {
            Socket.closeDiscardingError(fd)
            return
        }
        let id: Int = state.withLock {
            $0.nextID += 1
            $0.live[$0.nextID] = wakeup
            return $0.nextID
        }
        defer { _ = state.withLock { $0.live.removeValue(forKey: id) } }
        let context = HTTP2ServerConnectionContext(id: id, maxConcurrentStreams: maxConcurrentStreams)
        let session = ServerSession(
            fd: fd, tls: stream, wakeup: wakeup, server: self, handler: handler, context: context, clock: clock)
        if session.handshake(timeout: .seconds(10)) != nil {
            session.closeSocket()
            return
        }
        var negotiated = stream.negotiatedProtocol
        if negotiated == nil {
            // No ALPN (some clients, aioapns among them, speak h2 over TLS without it): the
            // HTTP/2 connection preface tells the two protocols apart.
            let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
            negotiated = session.inputStarts(with: preface, timeout: .seconds(10)) ? "h2" : "http/1.1"
        }
        context.negotiatedProtocol = negotiated ?? "http/1.1"
        handler.connectionOpened(context)
        if negotiated == "h2" {
            session.run()
        } else {
            HTTP1Fallback(session: session, handler: handler, context: context, server: self).run()
        }
    }
}
