/// What one client connection does with its requests, as a value: the poll loop (`ClientSession`)
/// feeds it what nghttp2 and the clock report, one event at a time, and executes the actions it
/// appends. It never reads a clock or touches a socket, so every path a request can take — answered,
/// refused, reset, lost, timed out, handed to another connection — is tested event by event
/// without a network (`HTTP2ClientStateMachineTests`).
///
/// A request ends exactly once, in one of three ways: `.succeed`, `.fail` (with `unprocessed` true
/// only when the server provably never saw it), or `.requeue` (the server provably never saw it, and
/// its deadline still holds, so the pool sends it on another connection).
struct ClientConnectionStateMachine {
    /// Where the connection is in its life.
    enum Phase: Equatable {
        /// Connected; the server's SETTINGS (and so its stream limit) are not known yet, so at most
        /// one stream is open.
        case awaitingSettings
        /// Takes new requests, up to the server's stream limit.
        case active
        /// The server sent GOAWAY: no new streams; those at or below `lastStreamID` may still be
        /// answered, those above were never processed.
        case draining(lastStreamID: Int32)
        /// The connection is gone; every request has been handed back.
        case closed
    }

    /// The timers, from `HTTP2Client.Configuration`.
    struct Timing {
        /// Send a PING after this long without traffic.
        var pingInterval: Duration
        /// Close the connection when a PING goes unanswered this long.
        var pingTimeout: Duration
        /// Streams the pool may count on before a response proves the server's real limit.
        var assumedInitialStreams: Int
        /// How often deadlines and the PING timeout are checked: checking on every loop turn would
        /// cost a pass over the streams per TLS record.
        var sweepInterval: Duration = .milliseconds(100)
    }

    /// What the poll loop must do.
    enum Action {
        /// Open a stream for the request, then report `streamOpened` or `streamOpenFailed`.
        case submit(PendingRequest)
        /// Send RST_STREAM(CANCEL).
        case resetStream(Int32)
        /// Send a PING.
        case sendPing
        /// Complete the request with its response.
        case succeed(PendingRequest, HTTP2Response)
        /// Complete the request with an error.
        case fail(PendingRequest, HTTP2ClientError)
        /// The server never saw these requests: send them on another connection.
        case requeue([PendingRequest])
        /// Tell the pool how many streams it may count on here.
        case publishCapacity(Int)
        /// The first SETTINGS arrived: the connection is up.
        case becameReady
        /// GOAWAY arrived: refuse further work and hand back whatever is still queued for this
        /// connection (as `requestsEnqueued`).
        case stopTakingWork
        /// Drop the connection now, then report `connectionClosed`.
        case abort(reason: String)
    }

    private struct Stream {
        var request: PendingRequest
        /// The complete response, once END_STREAM arrived; the request succeeds when the stream closes.
        var response: HTTP2Response? = nil
        /// Already failed at its deadline; its later close changes nothing.
        var completed = false
    }

    /// NGHTTP2_REFUSED_STREAM (RFC 9113 §7): the server did not process the stream.
    static let refusedStream: UInt32 = 0x7

    private(set) var phase: Phase = .awaitingSettings
    private let timing: Timing
    /// Requests waiting for a free stream, oldest first, from `waitingHead` on.
    private var waiting: [PendingRequest] = []
    private var waitingHead = 0
    private var streams: [Int32: Stream] = [:]
    /// Submitted but not yet reported opened or failed: they count against the stream limit.
    private var opening = 0
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS; one until its SETTINGS arrive (APNs' rule
    /// before the first valid token).
    private var remoteMaxStreams = 1
    private var sawResponse = false
    /// False once a write found the connection closed: a request submitted now would never be
    /// written, yet would count as in flight when the close is reported.
    private var canWrite = true
    private var lastActivity: ContinuousClock.Instant
    private var pingSentAt: ContinuousClock.Instant? = nil
    private var nextSweep: ContinuousClock.Instant

    init(timing: Timing, now: ContinuousClock.Instant) {
        self.timing = timing
        lastActivity = now
        nextSweep = now + timing.sweepInterval
    }

    /// Streams open or being opened (for tests).
    var openStreams: Int { streams.count + opening }
    /// Requests waiting for a free stream (for tests).
    var waitingRequests: Int { waiting.count - waitingHead }

    /// True once a draining connection has no stream left: the loop closes it when its output is written.
    var isDrained: Bool {
        if case .draining = phase { return streams.isEmpty && opening == 0 }
        return false
    }

    /// When `tick` must run next.
    var nextTimerDeadline: ContinuousClock.Instant {
        guard streams.isEmpty && waitingRequests == 0 && pingSentAt == nil else { return nextSweep }
        return min(nextSweep, lastActivity + timing.pingInterval)
    }

    private var goAwayLastStreamID: Int32? {
        if case .draining(let last) = phase { return last }
        return nil
    }

    // MARK: Events

    /// The server's SETTINGS arrived, with its stream limit.
    mutating func settingsReceived(maxConcurrentStreams: Int, into actions: inout [Action]) {
        guard phase != .closed else { return }
        remoteMaxStreams = maxConcurrentStreams
        // Before any response, keep promising the assumed figure: APNs announces one stream until
        // the first valid token, and believing it would make the pool open a connection per request.
        let capacity = sawResponse ? remoteMaxStreams : max(remoteMaxStreams, timing.assumedInitialStreams)
        actions.append(.publishCapacity(max(1, capacity)))
        if phase == .awaitingSettings {
            phase = .active
            actions.append(.becameReady)
        }
        submitWaiting(into: &actions)
    }

    /// The pool handed requests to this connection.
    mutating func requestsEnqueued(_ requests: [PendingRequest], into actions: inout [Action]) {
        guard !requests.isEmpty else { return }
        switch phase {
        case .awaitingSettings, .active:
            waiting.append(contentsOf: requests)
            submitWaiting(into: &actions)
        case .draining, .closed:
            // Not sent here, so not seen by the server: another connection takes them.
            actions.append(.requeue(requests))
        }
    }

    /// A `.submit` became stream `streamID`.
    mutating func streamOpened(_ streamID: Int32, for request: PendingRequest, now: ContinuousClock.Instant) {
        opening -= 1
        streams[streamID] = Stream(request: request)
        lastActivity = now
    }

    /// nghttp2 refused to open a stream for a `.submit`; nothing was sent.
    mutating func streamOpenFailed(_ request: PendingRequest, reason: String, into actions: inout [Action]) {
        opening -= 1
        actions.append(
            .fail(request, HTTP2ClientError(.streamReset, "cannot open a stream: \(reason)", unprocessed: true)))
        submitWaiting(into: &actions)
    }

    /// The whole response of a stream arrived (END_STREAM); the stream closes next.
    mutating func responseReceived(_ streamID: Int32, _ response: HTTP2Response) {
        streams[streamID]?.response = response
    }

    /// A stream closed, with the error code of its RST_STREAM (0 when it ended normally).
    mutating func streamClosed(
        _ streamID: Int32, errorCode: UInt32, now: ContinuousClock.Instant, into actions: inout [Action]
    ) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        lastActivity = now
        if !stream.completed {
            if let response = stream.response {
                if !sawResponse {
                    // A response proves the server's limit is the one it will hold to.
                    sawResponse = true
                    actions.append(.publishCapacity(max(1, remoteMaxStreams)))
                }
                actions.append(.succeed(stream.request, response))
            } else if errorCode == Self.refusedStream || isAboveGoAway(streamID) {
                // RFC 9113 §8.7: the server did not process it; send it again elsewhere, deadline unchanged.
                actions.append(.requeue([stream.request]))
            } else {
                actions.append(
                    .fail(
                        stream.request,
                        HTTP2ClientError(.streamReset, "the server reset the stream (HTTP/2 error \(errorCode))")))
            }
        }
        submitWaiting(into: &actions)
    }

    /// The server sent GOAWAY.
    mutating func goAwayReceived(lastStreamID: Int32, into actions: inout [Action]) {
        switch phase {
        case .closed: return
        case .draining(let previous):
            // A later GOAWAY may only lower the last stream id (RFC 9113 §6.8).
            phase = .draining(lastStreamID: min(previous, lastStreamID))
        case .awaitingSettings, .active:
            phase = .draining(lastStreamID: lastStreamID)
            actions.append(.stopTakingWork)
        }
        // Nothing waiting was sent: it goes to another connection now. Streams above lastStreamID
        // are closed by nghttp2 with REFUSED_STREAM and requeued in streamClosed.
        let unsent = takeWaiting()
        if !unsent.isEmpty { actions.append(.requeue(unsent)) }
    }

    /// This side retires the connection: no new streams, and those in flight finish. As a GOAWAY
    /// naming every stream: what waits goes to another connection, and the connection closes once drained.
    mutating func retire(into actions: inout [Action]) {
        goAwayReceived(lastStreamID: Int32.max, into: &actions)
    }

    /// A write found the connection closed by the server. What it sent before closing is still
    /// read (a GOAWAY, responses), but nothing more is submitted: requests still waiting go to
    /// another connection when the close is reported.
    mutating func peerStoppedReading() { canWrite = false }

    /// The server acknowledged our PING.
    mutating func pingAcknowledged() { pingSentAt = nil }

    /// Time passed: fail what is past its deadline, send a PING on an idle connection, and give up
    /// on one whose PING went unanswered.
    mutating func tick(now: ContinuousClock.Instant, into actions: inout [Action]) {
        guard phase != .closed else { return }
        if now >= nextSweep {
            nextSweep = now + timing.sweepInterval
            failExpired(now: now, into: &actions)
            if let sent = pingSentAt, now - sent > timing.pingTimeout {
                actions.append(.abort(reason: "no PING acknowledgement within \(timing.pingTimeout)"))
                return
            }
        }
        if streams.isEmpty && pingSentAt == nil && now - lastActivity >= timing.pingInterval {
            actions.append(.sendPing)
            pingSentAt = now
            lastActivity = now
        }
    }

    /// The connection ended (peer closed, I/O error, abort): hand back every request still here.
    mutating func connectionClosed(reason: String, into actions: inout [Action]) {
        guard phase != .closed else { return }
        let lastStreamID = goAwayLastStreamID
        phase = .closed
        var unsent = takeWaiting()
        for (streamID, stream) in streams.sorted(by: { $0.key < $1.key }) where !stream.completed {
            if let response = stream.response {
                actions.append(.succeed(stream.request, response))
            } else if let lastStreamID, streamID > lastStreamID {
                unsent.append(stream.request)
            } else {
                // Written, so perhaps processed: in doubt, never provably unprocessed.
                actions.append(
                    .fail(
                        stream.request,
                        HTTP2ClientError(.connectionLost, "connection lost with the request in flight: \(reason)")))
            }
        }
        streams = [:]
        if !unsent.isEmpty { actions.append(.requeue(unsent)) }
    }

    // MARK: Helpers

    private func isAboveGoAway(_ streamID: Int32) -> Bool {
        guard let last = goAwayLastStreamID else { return false }
        return streamID > last
    }

    private mutating func submitWaiting(into actions: inout [Action]) {
        switch phase {
        case .awaitingSettings, .active: guard canWrite else { return }
        case .draining, .closed: return
        }
        while waitingHead < waiting.count && streams.count + opening < remoteMaxStreams {
            actions.append(.submit(waiting[waitingHead]))
            waitingHead += 1
            opening += 1
        }
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        } else if waitingHead > 4096 {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
    }

    private mutating func takeWaiting() -> [PendingRequest] {
        let unsent = Array(waiting[waitingHead...])
        waiting.removeAll()
        waitingHead = 0
        return unsent
    }

    private mutating func failExpired(now: ContinuousClock.Instant, into actions: inout [Action]) {
        var expired: [Int32] = []
        for (streamID, stream) in streams where !stream.completed && stream.request.deadline <= now {
            expired.append(streamID)
        }
        for streamID in expired.sorted() {
            streams[streamID]?.completed = true
            guard let request = streams[streamID]?.request else { continue }
            // Written, so perhaps processed: in doubt. The stream counts against the limit until
            // nghttp2 closes it, once the reset is sent.
            actions.append(.resetStream(streamID))
            actions.append(
                .fail(request, HTTP2ClientError(.deadlineExceeded, "no response before the deadline")))
        }
        guard waitingHead < waiting.count else { return }
        var kept: [PendingRequest] = []
        for pending in waiting[waitingHead...] {
            if pending.deadline <= now {
                // Never sent: the server certainly did not see it.
                actions.append(
                    .fail(
                        pending,
                        HTTP2ClientError(.deadlineExceeded, "no free stream before the deadline", unprocessed: true)))
            } else {
                kept.append(pending)
            }
        }
        waiting = kept
        waitingHead = 0
    }
}
