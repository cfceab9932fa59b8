import Foundation
import Testing

@testable import DropTrackHTTP2

/// Drives a `ServerConnectionStateMachine` event by event, as `ServerSession` does, with actions
/// written as short words so each step reads as one line.
struct ServerDriver {
    var machine = ServerConnectionStateMachine()
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    static func words(_ action: ServerConnectionStateMachine.Action) -> String {
        switch action {
        case .sendSettings(let limit, let initial): "settings \(limit)\(initial ? " initial" : "")"
        case .callHandler(let streamID): "handle \(streamID)"
        case .respond(let streamID, let response): "respond \(streamID) \(response.status)"
        case .resetStream(let streamID, let errorCode): "reset \(streamID) code \(errorCode)"
        case .goAway(let last, let errorCode, let debugData):
            "goaway last \(last) code \(errorCode)"
                + (debugData.isEmpty ? "" : " " + String(decoding: debugData, as: UTF8.self))
        case .abort(let reason): "abort \(reason)"
        }
    }

    /// Runs one event and returns its actions as words.
    mutating func step(
        _ event: (inout ServerConnectionStateMachine, inout [ServerConnectionStateMachine.Action]) -> Void
    )
        -> [String]
    {
        var actions: [ServerConnectionStateMachine.Action] = []
        event(&machine, &actions)
        return actions.map(Self.words)
    }

    /// Opens a stream and completes its request: the handler is asked.
    mutating func request(_ streamID: Int32) -> [String] {
        machine.streamOpened(streamID)
        return step { $0.requestCompleted(streamID, into: &$1) }
    }

    mutating func answer(
        _ streamID: Int32, _ decision: HTTP2ServerAction, newLimit: UInt32? = nil, at seconds: Double = 0
    ) -> [String] {
        let now = at(seconds)
        return step {
            $0.handlerAnswered(streamID, with: decision, newMaxConcurrentStreams: newLimit, now: now, into: &$1)
        }
    }

    static func ok(_ status: Int = 200) -> HTTP2ServerResponse { HTTP2ServerResponse(status: status) }
}

@Suite struct HTTP2ServerStateMachineTests {
    @Test func theServerSettingsGoFirstAndOnlyOnce() {
        var driver = ServerDriver()
        #expect(driver.step { $0.sessionStarted(maxConcurrentStreams: 1, into: &$1) } == ["settings 1 initial"])
        #expect(driver.step { $0.sessionStarted(maxConcurrentStreams: 500, into: &$1) } == [])
        #expect(driver.machine.advertisedMaxConcurrentStreams == 1)
    }

    @Test func aCompleteRequestGoesToTheHandlerAndIsAnsweredOnce() {
        var driver = ServerDriver()
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 100, into: &$1) }
        driver.machine.streamOpened(1)
        #expect(driver.machine.streams[1] == .receiving)
        #expect(driver.step { $0.requestCompleted(1, into: &$1) } == ["handle 1"])
        // END_STREAM seen twice (it cannot be, but a second call must not ask the handler again).
        #expect(driver.step { $0.requestCompleted(1, into: &$1) } == [])
        #expect(driver.answer(1, .respond(ServerDriver.ok())) == ["respond 1 200"])
        #expect(driver.machine.streams[1] == .answered)
        driver.machine.streamClosed(1)
        #expect(driver.machine.streams.isEmpty)
        #expect(!driver.machine.shouldClose)
    }

    @Test func aStreamLimitTheHandlerChangedIsAdvertisedBeforeTheAnswer() {
        var driver = ServerDriver()
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 1, into: &$1) }
        #expect(driver.request(1) == ["handle 1"])
        #expect(driver.answer(1, .respond(ServerDriver.ok()), newLimit: 1000) == ["settings 1000", "respond 1 200"])
        #expect(driver.machine.advertisedMaxConcurrentStreams == 1000)
    }

    @Test func aDelayedAnswerWaitsForItsTimerWithoutHoldingOtherStreams() {
        var driver = ServerDriver()
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 100, into: &$1) }
        _ = driver.request(1)
        #expect(driver.answer(1, .respondAfter(.milliseconds(500), ServerDriver.ok()), at: 0) == [])
        #expect(driver.machine.nextTimerDeadline == driver.at(0.5))
        _ = driver.request(3)
        #expect(driver.answer(3, .respond(ServerDriver.ok(201)), at: 0.1) == ["respond 3 201"])
        let early = driver.at(0.4)
        #expect(driver.step { $0.timersDue(now: early, into: &$1) } == [])
        let due = driver.at(0.5)
        #expect(driver.step { $0.timersDue(now: due, into: &$1) } == ["respond 1 200"])
        #expect(driver.machine.nextTimerDeadline == nil)
    }

    @Test func aDelayedAnswerForAStreamTheClientResetIsDropped() {
        var driver = ServerDriver()
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 100, into: &$1) }
        _ = driver.request(1)
        _ = driver.answer(1, .respondAfter(.seconds(1), ServerDriver.ok()))
        driver.machine.streamClosed(1)
        let due = driver.at(1)
        #expect(driver.step { $0.timersDue(now: due, into: &$1) } == [])
        #expect(driver.machine.delayedAnswers == 0)
    }

    @Test func goAwayRefusesThisStreamAndEveryLaterOneAndStopsNewRequests() {
        var driver = ServerDriver()
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 100, into: &$1) }
        _ = driver.request(1)
        _ = driver.answer(1, .respondAfter(.seconds(1), ServerDriver.ok()))
        _ = driver.request(3)
        driver.machine.streamOpened(5)
        driver.machine.streamOpened(7)
        let debug = Array(#"{"reason":"Shutdown"}"#.utf8)
        #expect(
            driver.answer(3, .goAway(errorCode: 0, debugData: debug)) == [
                "reset 3 code 7", "reset 5 code 7", "reset 7 code 7", #"goaway last 1 code 0 {"reason":"Shutdown"}"#,
            ])
        #expect(driver.machine.isGoingAway && driver.machine.lingersOnClose)
        // Stream 7's request completes after GOAWAY: the handler never sees it.
        #expect(driver.step { $0.requestCompleted(7, into: &$1) } == [])
        // A second shutdown sends no second GOAWAY.
        #expect(driver.step { $0.shutdownRequested(lastProcessedStreamID: 7, into: &$1) } == [])
        for id: Int32 in [3, 5, 7] { driver.machine.streamClosed(id) }
        // Stream 1, processed before the GOAWAY, still gets its delayed answer before the close.
        #expect(!driver.machine.shouldClose)
        let due = driver.at(1)
        #expect(driver.step { $0.timersDue(now: due, into: &$1) } == ["respond 1 200"])
        driver.machine.streamClosed(1)
        #expect(driver.machine.shouldClose)
    }

    @Test func goAwayNamesTheHighestStreamHandledWhenRequestsCompleteOutOfOrder() {
        var driver = ServerDriver()
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 100, into: &$1) }
        for id: Int32 in [1, 3, 5, 7, 9] { driver.machine.streamOpened(id) }
        // Stream 7's body arrived first: it was handled and answered before stream 3 asked for GOAWAY.
        #expect(driver.step { $0.requestCompleted(7, into: &$1) } == ["handle 7"])
        #expect(driver.answer(7, .respond(ServerDriver.ok())) == ["respond 7 200"])
        #expect(driver.step { $0.requestCompleted(3, into: &$1) } == ["handle 3"])
        // Refused: stream 3 itself and stream 9, above the last stream named. Not stream 7, which
        // was processed, nor streams 1 and 5, which the client now waits on.
        #expect(
            driver.answer(3, .goAway(errorCode: 0, debugData: [])) == [
                "reset 3 code 7", "reset 9 code 7", "goaway last 7 code 0",
            ])
        #expect(driver.step { $0.requestCompleted(5, into: &$1) } == ["handle 5"])
        #expect(driver.answer(5, .respond(ServerDriver.ok())) == ["respond 5 200"])
        #expect(driver.step { $0.requestCompleted(9, into: &$1) } == [])
        // A second GOAWAY from the handler refuses its own stream and names the same last stream.
        #expect(driver.step { $0.requestCompleted(1, into: &$1) } == ["handle 1"])
        #expect(driver.answer(1, .goAway(errorCode: 0, debugData: [])) == ["reset 1 code 7", "goaway last 7 code 0"])
        for id: Int32 in [1, 3, 5, 7, 9] { driver.machine.streamClosed(id) }
        #expect(driver.machine.shouldClose)
    }

    @Test func afterGoAwayTheConnectionStillLingersOnceItHasClosed() {
        var driver = ServerDriver()
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 100, into: &$1) }
        _ = driver.request(1)
        _ = driver.answer(1, .goAway(errorCode: 0, debugData: []))
        driver.machine.streamClosed(1)
        // The loop asks after it has closed: answering false then closed the socket with the
        // client's later requests unread, and the RST that followed cost the client the GOAWAY.
        driver.machine.connectionClosed()
        #expect(driver.machine.lingersOnClose)
    }

    @Test func aRequestAtOrBelowTheShutdownsLastStreamIsStillHandled() {
        var driver = ServerDriver()
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 100, into: &$1) }
        driver.machine.streamOpened(1)
        driver.machine.streamOpened(3)
        #expect(driver.step { $0.shutdownRequested(lastProcessedStreamID: 3, into: &$1) } == ["goaway last 3 code 0"])
        // Stream 3's body arrives after the GOAWAY that named it: the client waits for its answer.
        #expect(driver.step { $0.requestCompleted(3, into: &$1) } == ["handle 3"])
        #expect(driver.answer(3, .respond(ServerDriver.ok())) == ["respond 3 200"])
        driver.machine.streamOpened(5)
        #expect(driver.step { $0.requestCompleted(5, into: &$1) } == [])
    }

    @Test func goAwayOnTheFirstStreamNamesStreamZero() {
        var driver = ServerDriver()
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 100, into: &$1) }
        _ = driver.request(1)
        #expect(driver.answer(1, .goAway(errorCode: 2, debugData: [])) == ["reset 1 code 7", "goaway last 0 code 2"])
    }

    @Test func shutdownSendsOneGoAwayAndClosesWhenTheStreamsFinish() {
        var driver = ServerDriver()
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 100, into: &$1) }
        _ = driver.request(1)
        #expect(driver.step { $0.shutdownRequested(lastProcessedStreamID: 1, into: &$1) } == ["goaway last 1 code 0"])
        #expect(driver.step { $0.shutdownRequested(lastProcessedStreamID: 1, into: &$1) } == [])
        #expect(!driver.machine.shouldClose)
        // The request already with the handler is still answered.
        #expect(driver.answer(1, .respond(ServerDriver.ok())) == ["respond 1 200"])
        driver.machine.streamClosed(1)
        #expect(driver.machine.shouldClose)
    }

    @Test func resetsAskedForByTheHandler() {
        var driver = ServerDriver()
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 100, into: &$1) }
        _ = driver.request(1)
        #expect(driver.answer(1, .resetStream(errorCode: 2)) == ["reset 1 code 2"])
        _ = driver.request(3)
        #expect(driver.answer(3, .resetConnection) == ["abort connection reset on purpose"])
        // Nothing more happens on a connection that was dropped.
        driver.machine.streamOpened(5)
        #expect(driver.step { $0.requestCompleted(5, into: &$1) } == [])
        #expect(driver.step { $0.shutdownRequested(lastProcessedStreamID: 5, into: &$1) } == [])
        #expect(!driver.machine.lingersOnClose)
    }

    @Test func eventsBeforeTheSessionOrAfterTheCloseChangeNothing() {
        var driver = ServerDriver()
        driver.machine.streamOpened(1)
        #expect(driver.step { $0.requestCompleted(1, into: &$1) } == [])
        _ = driver.step { $0.sessionStarted(maxConcurrentStreams: 100, into: &$1) }
        _ = driver.request(3)
        _ = driver.answer(3, .respondAfter(.seconds(1), ServerDriver.ok()))
        driver.machine.connectionClosed()
        #expect(driver.machine.nextTimerDeadline == nil)
        #expect(driver.answer(3, .respond(ServerDriver.ok())) == [])
    }
}
