/// A connection as the pool sees it. `ClientConnectionHandle` reads these from atomics its
/// connection thread keeps current; tests use plain objects.
protocol PoolConnection: AnyObject {
    /// Where the connection is in its life.
    var phase: ClientConnectionHandle.Phase { get }
    /// Requests queued on it or in flight.
    var currentLoad: Int { get }
    /// Streams the pool may count on.
    var currentCapacity: Int { get }
}

/// Which connection takes a request, when to open another, and how long to wait after a failed
/// connection attempt, as a value: `HTTP2Client` keeps it behind its lock, passes the time in, and
/// carries out the decisions (start a connection thread, schedule a retry, complete a request).
struct ConnectionPoolStateMachine<Connection: PoolConnection> {
    /// The limits, from `HTTP2Client.Configuration`.
    struct Policy {
        var maxConnections: Int
        var reconnectDelay: Duration
        var maxReconnectDelay: Duration
        var requestTimeout: Duration
    }

    /// What to do with a request.
    enum Decision {
        /// Enqueue it on this connection (if that fails, the connection just closed: dispatch again).
        case use(Connection)
        /// Create connection `id`, register it with `opened`, enqueue the request on it and start it.
        case open(id: Int)
        /// Parked until a connection attempt is allowed; schedule `retryDue` at the instant if given.
        case parked(scheduleRetryAt: ContinuousClock.Instant?)
        /// Complete it with this error.
        case fail(HTTP2ClientError)
    }

    let policy: Policy
    private(set) var connections: [Connection] = []
    private(set) var parked: [PendingRequest] = []
    private(set) var consecutiveFailures = 0
    private(set) var connectionsOpened = 0
    private(set) var endedReasons: [String] = []
    private(set) var isShutdown = false
    private var nextID = 0
    private var nextConnectAt: ContinuousClock.Instant
    private var lastConnectError: HTTP2ClientError? = nil
    private var retryScheduledAt: ContinuousClock.Instant? = nil

    init(policy: Policy, now: ContinuousClock.Instant) {
        self.policy = policy
        nextConnectAt = now
    }

    /// The wait after `failures` consecutive failed attempts, before jitter: doubling from
    /// `reconnectDelay`, and never longer than half a request's deadline, since a request parked
    /// behind a longer wait would fail without a single connection attempt and callers (the
    /// dispatcher's probe) would never learn that the server is back.
    static func reconnectDelay(afterFailures failures: Int, policy: Policy) -> Duration {
        let longest = min(policy.maxReconnectDelay, policy.requestTimeout / 2)
        var delay = min(policy.reconnectDelay, longest)
        for _ in 1..<max(1, min(failures, 20)) { delay = min(delay * 2, longest) }
        return delay
    }

    /// Chooses where `pending` goes.
    mutating func dispatch(_ pending: PendingRequest, now: ContinuousClock.Instant) -> Decision {
        if isShutdown { return .fail(HTTP2ClientError(.shutdown, "the client was shut down", unprocessed: true)) }
        connections.removeAll { $0.phase == .closed }
        var best: Connection? = nil
        var bestLoad = Int.max
        for connection in connections {
            let phase = connection.phase
            guard phase == .connecting || phase == .ready else { continue }
            // A connection still coming up takes everything: its real limit is not known yet, and
            // a second connection would not be up any sooner.
            if phase == .connecting { return .use(connection) }
            let load = connection.currentLoad
            if load < connection.currentCapacity { return .use(connection) }
            if load < bestLoad {
                best = connection
                bestLoad = load
            }
        }
        if connections.count < policy.maxConnections {
            if now < nextConnectAt { return park(pending, wakeAt: min(nextConnectAt, pending.deadline)) }
            nextID += 1
            connectionsOpened += 1
            return .open(id: nextID)
        }
        // Every connection is full: queue on the least loaded, which sends as streams free up.
        if let best { return .use(best) }
        // Every connection is draining: one closing makes room (`connectionClosed`); meanwhile the
        // request must still fail at its deadline.
        return park(pending, wakeAt: pending.deadline)
    }

    private mutating func park(_ pending: PendingRequest, wakeAt: ContinuousClock.Instant) -> Decision {
        parked.append(pending)
        if let scheduled = retryScheduledAt, scheduled <= wakeAt { return .parked(scheduleRetryAt: nil) }
        retryScheduledAt = wakeAt
        return .parked(scheduleRetryAt: wakeAt)
    }

    /// The connection `.open` asked for exists now.
    mutating func opened(_ connection: Connection) { connections.append(connection) }

    /// A connection attempt failed; returns how long until the next may start. `jitter` (0.75…1.25
    /// in production) spreads the reconnects of many clients so they do not arrive together.
    mutating func connectionFailed(
        _ connection: Connection, error: HTTP2ClientError, now: ContinuousClock.Instant, jitter: Double
    ) -> Duration {
        connections.removeAll { $0 === connection }
        consecutiveFailures += 1
        lastConnectError = error
        noteEnded("connect failed: \(error.message)")
        // Capped after the jitter too, so the wait never exceeds half a request's deadline.
        let longest = min(policy.maxReconnectDelay, policy.requestTimeout / 2)
        let delay = min(Self.reconnectDelay(afterFailures: consecutiveFailures, policy: policy) * jitter, longest)
        nextConnectAt = now + delay
        return delay
    }

    /// A connection received its first SETTINGS: the server is reachable again.
    mutating func connectionReady() { consecutiveFailures = 0 }

    /// A connection ended. Returns the parked requests, to dispatch again now that there is room.
    mutating func connectionClosed(_ connection: Connection, reason: String) -> [PendingRequest] {
        connections.removeAll { $0 === connection }
        noteEnded(reason)
        let waiting = parked
        parked = []
        return waiting
    }

    /// The scheduled retry is due: parked requests past their deadline fail (with the last connect
    /// error, when there was one), the rest are dispatched again.
    mutating func retryDue(now: ContinuousClock.Instant) -> (
        failed: [(PendingRequest, HTTP2ClientError)], retry: [PendingRequest]
    ) {
        retryScheduledAt = nil
        var failed: [(PendingRequest, HTTP2ClientError)] = []
        var retry: [PendingRequest] = []
        for pending in parked {
            if pending.deadline <= now {
                // Never sent anywhere: unprocessed.
                let error =
                    lastConnectError.map {
                        HTTP2ClientError(
                            $0.code, "no connection before the deadline; last attempt: \($0.message)",
                            unprocessed: true)
                    } ?? HTTP2ClientError(.deadlineExceeded, "no connection before the deadline", unprocessed: true)
                failed.append((pending, error))
            } else {
                retry.append(pending)
            }
        }
        parked = []
        return (failed, retry)
    }

    /// A request the server never saw comes back from a connection: the error to fail it with when
    /// its deadline has passed, or nil to dispatch it again.
    func requeueVerdict(_ pending: PendingRequest, now: ContinuousClock.Instant) -> HTTP2ClientError? {
        guard pending.deadline <= now else { return nil }
        return HTTP2ClientError(.deadlineExceeded, "no response before the deadline", unprocessed: true)
    }

    /// Refuses all further work. Returns the connections to close and the parked requests, which
    /// fail with `.shutdown` (unprocessed: they were never sent).
    mutating func shutdown() -> (connections: [Connection], parked: [PendingRequest]) {
        isShutdown = true
        let result = (connections, parked)
        parked = []
        return result
    }

    private mutating func noteEnded(_ reason: String) {
        if endedReasons.count == 16 { endedReasons.removeFirst() }
        endedReasons.append(reason)
    }
}
