/// Limits that keep one client, or many slow ones, from taking an `HTTPServer` away from everybody else. The defaults
/// are the server's documented guarantees.
public struct HTTPServerLimits: Sendable {
    /// Open connections in all (default 1,000). The next one is answered at once with `503 Service Unavailable`,
    /// `Retry-After` and `Connection: close`, then closed: it never waits in the kernel's backlog.
    public var maximumConnections: Int
    /// Open connections from one IPv4 address (default 64). The next one from that address is answered at once with
    /// `429 Too Many Requests`, `Retry-After` and `Connection: close`, then closed.
    public var maximumConnectionsPerAddress: Int
    /// The request line and headers must be in within this long of the connection opening or of the previous
    /// response ending (default 10 s), however slowly they trickle; otherwise the client gets `408 Request Timeout`
    /// and the connection closes. An idle keep-alive connection is therefore closed after this long too.
    public var headerTimeout: Duration
    /// A request body gets this long from the end of its headers (default 10 s), plus one second for every
    /// `minimumBodyBytesPerSecond` bytes that arrive; a body slower than that gets `408` and the connection closes.
    /// Responses are never cut by either deadline, so SSE streams live on.
    public var bodyTimeout: Duration
    /// The body rate below which an upload is cut (default 1,024 bytes per second, after `bodyTimeout`).
    public var minimumBodyBytesPerSecond: Int
    /// The `Retry-After` seconds sent with the 503 and the 429 (default 5).
    public var retryAfterSeconds: Int
    /// How long `stop()` waits for handlers still running (default 10 s). See `HTTPServer.stop(deadline:)`.
    public var stopDeadline: Duration

    /// Limits with the documented defaults, any of them overridden.
    public init(
        maximumConnections: Int = 1000, maximumConnectionsPerAddress: Int = 64, headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(10), minimumBodyBytesPerSecond: Int = 1024, retryAfterSeconds: Int = 5,
        stopDeadline: Duration = .seconds(10)
    ) {
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.minimumBodyBytesPerSecond = minimumBodyBytesPerSecond
        self.retryAfterSeconds = retryAfterSeconds
        self.stopDeadline = stopDeadline
    }

    /// Values made usable: at least one connection, one per address, a positive rate, no negative times.
    var normalized: HTTPServerLimits {
        var limits = self
        limits.maximumConnections = min(max(1, maximumConnections), 1_000_000)
        limits.maximumConnectionsPerAddress = max(1, maximumConnectionsPerAddress)
        limits.headerTimeout = max(.milliseconds(10), headerTimeout)
        limits.bodyTimeout = max(.milliseconds(10), bodyTimeout)
        limits.minimumBodyBytesPerSecond = max(1, minimumBodyBytesPerSecond)
        limits.retryAfterSeconds = max(0, retryAfterSeconds)
        limits.stopDeadline = max(.zero, stopDeadline)
        return limits
    }
}
