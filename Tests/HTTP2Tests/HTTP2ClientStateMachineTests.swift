import Foundation
import Testing

@testable import DropTrackHTTP2

/// Requests named by their path, and actions as short words, so each step reads as one line.
enum MachineScript {
    static let start = ContinuousClock.now

    static func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    static func request(_ path: String, deadline: Double = 10) -> PendingRequest {
        PendingRequest(request: HTTP2Request(method: "POST", path: path), deadline: at(deadline), completion: { _ in })
    }

    static func words(_ error: HTTP2ClientError) -> String {
        "\(error.code) \(error.unprocessed ? "unprocessed" : "in doubt")"
    }

    static func words(_ action: ClientConnectionStateMachine.Action) -> String {
        switch action {
        case .submit(let pending): "submit \(pending.request.path)"
        case .resetStream(let streamID): "reset \(streamID)"
        case .sendPing: "ping"
        case .succeed(let pending, let response): "succeed \(pending.request.path) \(response.status)"
        case .fail(let pending, let error): "fail \(pending.request.path) \(words(error))"
        case .requeue(let requests): "requeue " + requests.map(\.request.path).joined(separator: " ")
        case .publishCapacity(let capacity): "capacity \(capacity)"
        case .becameReady: "ready"
        case .stopTakingWork: "stop taking work"
        case .abort: "abort"
        }
    }
}

/// Drives a machine the way `ClientSession` does, keeping the submitted requests so that a test
/// can open their streams with the ids nghttp2 would give them.
struct ConnectionDriver {
    var machine: ClientConnectionStateMachine
    var submitted: [PendingRequest] = []

    init(pingInterval: Duration = .seconds(60), pingTimeout: Duration = .seconds(10), assumed: Int = 100) {
        machine = ClientConnectionStateMachine(
            timing: .init(pingInterval: pingInterval, pingTimeout: pingTimeout, assumedInitialStreams: assumed),
            now: MachineScript.start)
    }

    private mutating func record(_ actions: [ClientConnectionStateMachine.Action]) -> [String] {
        for case .submit(let pending) in actions { submitted.append(pending) }
        return actions.map(MachineScript.words)
    }

    mutating func enqueue(_ paths: String..., deadline: Double = 10) -> [String] {
        var actions: [ClientConnectionStateMachine.Action] = []
        machine.requestsEnqueued(paths.map { MachineScript.request($0, deadline: deadline) }, into: &actions)
        return record(actions)
    }

    mutating func settings(_ maxStreams: Int) -> [String] {
        var actions: [ClientConnectionStateMachine.Action] = []
        machine.settingsReceived(maxConcurrentStreams: maxStreams, into: &actions)
        return record(actions)
    }

    /// Opens the oldest submitted request as `streamID`.
    mutating func open(_ streamID: Int32, at seconds: Double = 0) {
        machine.streamOpened(streamID, for: submitted.removeFirst(), now: MachineScript.at(seconds))
    }

    mutating func openFailed() -> [String] {
        var actions: [ClientConnectionStateMachine.Action] = []
        machine.streamOpenFailed(submitted.removeFirst(), reason: "stream ids exhausted", into: &actions)
        return record(actions)
    }

    mutating func respond(_ streamID: Int32, status: Int = 200, at seconds: Double = 0) -> [String] {
        machine.responseReceived(streamID, HTTP2Response(status: status))
        return close(streamID, errorCode: 0, at: seconds)
    }

    mutating func close(_ streamID: Int32, errorCode: UInt32, at seconds: Double = 0) -> [String] {
        var actions: [ClientConnectionStateMachine.Action] = []
        machine.streamClosed(streamID, errorCode: errorCode, now: MachineScript.at(seconds), into: &actions)
        return record(actions)
    }

    mutating func goAway(lastStreamID: Int32) -> [String] {
        var actions: [ClientConnectionStateMachine.Action] = []
        machine.goAwayReceived(lastStreamID: lastStreamID, into: &actions)
        return record(actions)
    }

    mutating func tick(_ seconds: Double) -> [String] {
        var actions: [ClientConnectionStateMachine.Action] = []
        machine.tick(now: MachineScript.at(seconds), into: &actions)
        return record(actions)
    }

    mutating func connectionClosed() -> [String] {
        var actions: [ClientConnectionStateMachine.Action] = []
        machine.connectionClosed(reason: "the peer closed the connection", into: &actions)
        return record(actions)
    }
}

let refusedStream: UInt32 = 0x7
let cancel: UInt32 = 0x8

@Suite("HTTP/2 client connection state machine")
struct HTTP2ClientStateMachineTests {
    @Test("one stream until SETTINGS; then the assumed capacity is published and the server's limit used")
    func settingsOpenTheGate() {
        var driver = ConnectionDriver(assumed: 100)
        #expect(driver.enqueue("/a", "/b", "/c", "/d") == ["submit /a"])
        driver.open(1)
        #expect(driver.settings(2) == ["capacity 100", "ready", "submit /b"])
        #expect(driver.machine.phase == .active)
        driver.open(3)
        #expect(driver.machine.waitingRequests == 2)
        // The first response proves the limit: the pool now counts on 2, and /c takes the free stream.
        #expect(driver.respond(1) == ["capacity 2", "succeed /a 200", "submit /c"])
        #expect(driver.respond(3) == ["succeed /b 200", "submit /d"])
    }

    @Test(
        "GOAWAY: unsent and later requests are requeued; streams above lastStreamID are requeued, those at or below that close unanswered are in doubt"
    )
    func goAwayWithStreamsInFlight() {
        var driver = ConnectionDriver()
        _ = driver.settings(4)
        #expect(driver.enqueue("/1", "/3", "/5", "/7", "/waiting").count == 4)
        for id: Int32 in [1, 3, 5, 7] { driver.open(id) }
        #expect(driver.goAway(lastStreamID: 3) == ["stop taking work", "requeue /waiting"])
        #expect(driver.machine.phase == .draining(lastStreamID: 3))
        #expect(driver.enqueue("/late") == ["requeue /late"])
        // nghttp2 closes the streams above lastStreamID with REFUSED_STREAM.
        #expect(driver.close(5, errorCode: refusedStream) == ["requeue /5"])
        #expect(driver.respond(1) == ["capacity 4", "succeed /1 200"])
        #expect(!driver.machine.isDrained)
        // The connection drops before 3 is answered and before 7's refusal was reported.
        #expect(driver.connectionClosed() == ["fail /3 connectionLost in doubt", "requeue /7"])
        #expect(driver.machine.phase == .closed)
        #expect(driver.connectionClosed() == [])
    }

    @Test("a second GOAWAY may only lower lastStreamID, and a draining connection ends with its last stream")
    func goAwayTwice() {
        var driver = ConnectionDriver()
        _ = driver.settings(4)
        _ = driver.enqueue("/1", "/3", "/5")
        for id: Int32 in [1, 3, 5] { driver.open(id) }
        _ = driver.goAway(lastStreamID: 5)
        #expect(driver.goAway(lastStreamID: 1) == [])
        #expect(driver.goAway(lastStreamID: 5) == [])
        #expect(driver.machine.phase == .draining(lastStreamID: 1))
        // Above the lowered id: requeued even though the server reset it with another code.
        #expect(driver.close(3, errorCode: cancel) == ["requeue /3"])
        #expect(driver.close(5, errorCode: 0) == ["requeue /5"])
        #expect(!driver.machine.isDrained)
        #expect(driver.respond(1) == ["capacity 4", "succeed /1 200"])
        #expect(driver.machine.isDrained)
    }

    @Test("REFUSED_STREAM requeues the request and frees the stream for the next one; other resets are in doubt")
    func refusedAndReset() {
        var driver = ConnectionDriver()
        _ = driver.settings(1)
        #expect(driver.enqueue("/a", "/b", "/c") == ["submit /a"])
        driver.open(1)
        #expect(driver.close(1, errorCode: refusedStream) == ["requeue /a", "submit /b"])
        driver.open(3)
        #expect(driver.close(3, errorCode: cancel) == ["fail /b streamReset in doubt", "submit /c"])
        driver.open(5)
        // A close with no error but no response either: the server may have acted on it.
        #expect(driver.close(5, errorCode: 0) == ["fail /c streamReset in doubt"])
    }

    @Test("a stream nghttp2 cannot open fails as unprocessed and the next request gets its turn")
    func openFailure() {
        var driver = ConnectionDriver()
        _ = driver.settings(1)
        #expect(driver.enqueue("/a", "/b") == ["submit /a"])
        #expect(driver.openFailed() == ["fail /a streamReset unprocessed", "submit /b"])
        #expect(driver.machine.openStreams == 1)
    }

    @Test("deadlines: a written stream is reset and in doubt; a waiting request is unprocessed")
    func deadlines() {
        var driver = ConnectionDriver()
        _ = driver.settings(1)
        #expect(driver.enqueue("/written", "/waiting", deadline: 1) == ["submit /written"])
        driver.open(1)
        #expect(driver.tick(0.5) == [])
        #expect(
            driver.tick(1.0) == [
                "reset 1", "fail /written deadlineExceeded in doubt", "fail /waiting deadlineExceeded unprocessed",
            ])
        // The stream still counts until nghttp2 closes it after the reset, and then nothing is reported twice.
        #expect(driver.machine.openStreams == 1)
        #expect(driver.tick(1.2) == [])
        #expect(driver.close(1, errorCode: cancel) == [])
        #expect(driver.machine.openStreams == 0)
    }

    @Test("deadlines are checked once per sweep, not on every loop turn")
    func sweepInterval() {
        var driver = ConnectionDriver()
        _ = driver.settings(1)
        _ = driver.enqueue("/a", deadline: 0.15)
        driver.open(1)
        #expect(driver.machine.nextTimerDeadline == MachineScript.at(0.1))
        #expect(driver.tick(0.1) == [])
        #expect(driver.tick(0.15) == [])
        #expect(driver.tick(0.2) == ["reset 1", "fail /a deadlineExceeded in doubt"])
    }

    @Test("an idle connection sends a PING after pingInterval; an answered PING keeps it")
    func pingKeepsAlive() {
        var driver = ConnectionDriver(pingInterval: .seconds(5), pingTimeout: .seconds(2))
        _ = driver.settings(10)
        #expect(driver.machine.nextTimerDeadline == MachineScript.at(0.1))
        #expect(driver.tick(0.1) == [])
        #expect(driver.tick(4.9) == [])
        #expect(driver.machine.nextTimerDeadline == MachineScript.at(5))
        #expect(driver.tick(5) == ["ping"])
        #expect(driver.tick(5.5) == [])
        driver.machine.pingAcknowledged()
        #expect(driver.tick(9.9) == [])
        #expect(driver.tick(10) == ["ping"])
    }

    @Test("a PING unanswered past pingTimeout closes the connection, and its in-flight streams are in doubt")
    func pingTimeout() {
        var driver = ConnectionDriver(pingInterval: .seconds(5), pingTimeout: .seconds(2))
        _ = driver.settings(10)
        #expect(driver.tick(5) == ["ping"])
        // A request goes out while the PING is unanswered.
        #expect(driver.enqueue("/a", "/b", deadline: 60) == ["submit /a", "submit /b"])
        driver.open(1, at: 6)
        driver.open(3, at: 6)
        #expect(driver.tick(7) == [])
        #expect(driver.tick(7.1) == ["abort"])
        #expect(
            driver.connectionClosed() == [
                "fail /a connectionLost in doubt", "fail /b connectionLost in doubt",
            ])
        #expect(driver.tick(20) == [])
    }

    @Test("a lost connection requeues what was never sent and fails what was, as in doubt")
    func connectionLost() {
        var driver = ConnectionDriver()
        #expect(driver.enqueue("/sent", "/queued") == ["submit /sent"])
        driver.open(1)
        #expect(driver.connectionClosed() == ["fail /sent connectionLost in doubt", "requeue /queued"])
        #expect(driver.enqueue("/after") == ["requeue /after"])
    }

    @Test("once the server stops reading, responses still count but waiting requests are not submitted")
    func peerStoppedReading() {
        var driver = ConnectionDriver()
        _ = driver.settings(1)
        #expect(driver.enqueue("/sent", "/waiting") == ["submit /sent"])
        driver.open(1)
        // A write failed; the response read afterwards frees the stream, but nothing can be written.
        driver.machine.peerStoppedReading()
        #expect(driver.respond(1) == ["capacity 1", "succeed /sent 200"])
        #expect(driver.connectionClosed() == ["requeue /waiting"])
    }

    @Test("a response that arrived whole before the connection dropped still succeeds")
    func responseBeforeLoss() {
        var driver = ConnectionDriver()
        _ = driver.settings(10)
        _ = driver.enqueue("/a")
        driver.open(1)
        driver.machine.responseReceived(1, HTTP2Response(status: 200))
        #expect(driver.connectionClosed() == ["succeed /a 200"])
    }
}
