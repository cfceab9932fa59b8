/// The protocol decisions of one server connection, as a value driven by events: which streams are
/// open and answered, when the handler sees a request, the SETTINGS the connection advertises,
/// delayed answers, GOAWAY on shutdown and the faults a handler asks for (GOAWAY refusing later
/// streams, stream resets, connection resets). `ServerSession` turns nghttp2's callbacks and its
/// timers into these events and executes the returned actions; framing stays with nghttp2.
struct ServerConnectionStateMachine {
    /// HTTP/2 error codes the machine chooses itself (RFC 9113 §7).
    enum ErrorCode {
        static let noError: UInt32 = 0
        static let refusedStream: UInt32 = 7
    }

    /// The flow-control window every connection advertises for each stream.
    static let initialWindowSize: UInt32 = 1 << 20

    /// What the I/O loop does next.
    enum Action: Sendable {
        /// Queue a SETTINGS frame with this stream limit (and, the first time, the window size).
        case sendSettings(maxConcurrentStreams: UInt32, initial: Bool)
        /// Build the request of this stream and ask the handler about it; its answer comes back as
        /// `handlerAnswered`.
        case callHandler(streamID: Int32)
        /// Send this response on the stream.
        case respond(streamID: Int32, HTTP2ServerResponse)
        /// Queue RST_STREAM with this error code.
        case resetStream(streamID: Int32, errorCode: UInt32)
        /// Queue GOAWAY naming `lastStreamID` as the last stream this side will process.
        case goAway(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8])
        /// Drop the TCP connection at once (RST), without GOAWAY.
        case abort(reason: String)
    }

    /// Where one stream stands.
    enum StreamPhase: Equatable {
        /// Headers or body still arriving.
        case receiving
        /// The handler has the request; no answer is queued yet (or it is waiting on a timer).
        case handled
        /// A response was queued; a second one would be a protocol error.
        case answered
        /// Reset with REFUSED_STREAM: the client sends it again elsewhere, so it is never answered.
        case refused
    }

    private enum Phase: Equatable {
        case awaitingSession, open, goingAway, closed
    }

    private var phase = Phase.awaitingSession
    private(set) var streams: [Int32: StreamPhase] = [:]
    /// The last stream id the GOAWAY named: requests on streams up to it are still processed.
    private var goAwayLastStreamID: Int32? = nil
    /// The highest stream whose request went to the handler and has since closed.
    private var highestClosedHandledStreamID: Int32 = 0
    /// Answers the handler asked to delay, in the order they were asked for.
    private var timers: [(at: ContinuousClock.Instant, streamID: Int32, response: HTTP2ServerResponse)] = []
    /// The stream limit last advertised.
    private(set) var advertisedMaxConcurrentStreams: UInt32 = 0

    init() {}

    // MARK: Queries

    /// True once GOAWAY is queued: no new request reaches the handler.
    var isGoingAway: Bool { phase == .goingAway }

    /// The loop may close once GOAWAY is out and every stream and delayed answer is done.
    var shouldClose: Bool { phase == .goingAway && streams.isEmpty && timers.isEmpty }

    /// After GOAWAY, closing waits for the peer to close first, so it reads the GOAWAY. It stays
    /// true once the connection has closed: the loop asks after the close, and a socket closed with
    /// the peer's later requests unread sends RST, which can cost the peer the GOAWAY.
    var lingersOnClose: Bool { goAwayLastStreamID != nil }

    /// When `timersDue` must run next, if any answer is delayed.
    var nextTimerDeadline: ContinuousClock.Instant? { timers.lazy.map(\.at).min() }

    /// Delayed answers not yet sent (for tests).
    var delayedAnswers: Int { timers.count }

    // MARK: Events

    /// The session exists; the server's SETTINGS go first (the connection preface's server half).
    mutating func sessionStarted(maxConcurrentStreams: UInt32, into actions: inout [Action]) {
        guard phase == .awaitingSession else { return }
        phase = .open
        advertisedMaxConcurrentStreams = maxConcurrentStreams
        actions.append(.sendSettings(maxConcurrentStreams: maxConcurrentStreams, initial: true))
    }

    /// A HEADERS frame opened a stream.
    mutating func streamOpened(_ streamID: Int32) {
        guard phase == .open || phase == .goingAway else { return }
        streams[streamID] = .receiving
    }

    /// The request on the stream is complete (END_STREAM seen). It goes to the handler before
    /// GOAWAY, and after it when the GOAWAY's last stream id covers it: the peer was told that
    /// stream would be processed, and waits for its answer.
    mutating func requestCompleted(_ streamID: Int32, into actions: inout [Action]) {
        guard streams[streamID] == .receiving else { return }
        switch phase {
        case .open: break
        case .goingAway: guard let last = goAwayLastStreamID, streamID <= last else { return }
        case .awaitingSession, .closed: return
        }
        streams[streamID] = .handled
        actions.append(.callHandler(streamID: streamID))
    }

    /// The handler decided about the request on `streamID`; `newMaxConcurrentStreams` is a stream
    /// limit it asked to advertise meanwhile.
    mutating func handlerAnswered(
        _ streamID: Int32, with decision: HTTP2ServerAction, newMaxConcurrentStreams: UInt32?,
        now: ContinuousClock.Instant, into actions: inout [Action]
    ) {
        guard phase == .open || phase == .goingAway else { return }
        if let limit = newMaxConcurrentStreams {
            advertisedMaxConcurrentStreams = limit
            actions.append(.sendSettings(maxConcurrentStreams: limit, initial: false))
        }
        switch decision {
        case .respond(let response): answer(streamID, response, into: &actions)
        case .respondAfter(let delay, let response): timers.append((now + delay, streamID, response))
        case .goAway(let errorCode, let debugData):
            // This stream and every later one the handler has not seen were never processed: the
            // client may send them again. Requests complete out of stream order, so the last
            // stream named is the highest one handled, not the one before this; a second GOAWAY
            // may only lower it (RFC 9113 §6.8).
            let last = min(highestHandledStreamID(other: streamID), goAwayLastStreamID ?? .max)
            phase = .goingAway
            goAwayLastStreamID = last
            for id in streams.keys.sorted() where id == streamID || (id > last && streams[id] == .receiving) {
                streams[id] = .refused
                actions.append(.resetStream(streamID: id, errorCode: ErrorCode.refusedStream))
            }
            actions.append(.goAway(lastStreamID: last, errorCode: errorCode, debugData: debugData))
        case .resetConnection:
            phase = .closed
            actions.append(.abort(reason: "connection reset on purpose"))
        case .resetStream(let errorCode): actions.append(.resetStream(streamID: streamID, errorCode: errorCode))
        }
    }

    /// The server is stopping: GOAWAY once, naming the last stream nghttp2 handed up.
    mutating func shutdownRequested(lastProcessedStreamID: Int32, into actions: inout [Action]) {
        guard phase == .open else { return }
        phase = .goingAway
        goAwayLastStreamID = lastProcessedStreamID
        actions.append(.goAway(lastStreamID: lastProcessedStreamID, errorCode: ErrorCode.noError, debugData: []))
    }

    /// Delayed answers whose time has come are sent, unless their stream is gone or answered.
    mutating func timersDue(now: ContinuousClock.Instant, into actions: inout [Action]) {
        guard timers.contains(where: { $0.at <= now }) else { return }
        let due = timers.filter { $0.at <= now }
        timers.removeAll { $0.at <= now }
        for timer in due { answer(timer.streamID, timer.response, into: &actions) }
    }

    /// The stream closed (answered, reset by either side, or refused).
    mutating func streamClosed(_ streamID: Int32) {
        guard let closed = streams.removeValue(forKey: streamID) else { return }
        if closed == .handled || closed == .answered {
            highestClosedHandledStreamID = max(highestClosedHandledStreamID, streamID)
        }
    }

    /// The connection ended; later events change nothing.
    mutating func connectionClosed() {
        phase = .closed
        streams.removeAll()
        timers.removeAll()
    }

    /// The highest stream id whose request reached the handler, leaving `streamID` out (0 if none).
    private func highestHandledStreamID(other streamID: Int32) -> Int32 {
        var highest = highestClosedHandledStreamID
        for (id, phase) in streams where id != streamID && (phase == .handled || phase == .answered) {
            highest = max(highest, id)
        }
        return highest
    }

    private mutating func answer(_ streamID: Int32, _ response: HTTP2ServerResponse, into actions: inout [Action]) {
        guard streams[streamID] == .handled else { return }
        streams[streamID] = .answered
        actions.append(.respond(streamID: streamID, response))
    }
}
