import DropTrackCrypto
import DropTrackTesting
import Foundation
import Synchronization
import Testing

@testable import DropTrackHTTP2

/// A monotonic clock that moves only when a test says so.
private final class ManualInstantClock: Sendable {
    private let current = Mutex(ContinuousClock.now)
    var now: @Sendable () -> ContinuousClock.Instant { { self.current.withLock { $0 } } }
    func advance(by duration: Duration) { current.withLock { $0 += duration } }
}

/// Answers `/hold` only after an hour of the server's real time (never, for a test), everything else at once.
/// A minute was not enough: under a full test run the client's first check came 70 s late, after the answer.
private struct HoldingHandler: HTTP2ServerHandler {
    func handle(_ request: HTTP2ServerRequest, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        if request.path == "/hold" { return .respondAfter(.seconds(3600), HTTP2ServerResponse(status: 200)) }
        return .respond(HTTP2ServerResponse(status: 200))
    }
}

/// Polls `condition` for up to `seconds` of real time.
private func eventually(within seconds: Double, _ condition: () -> Bool) async -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

@Suite("The client's connections read the injected clock")
struct HTTP2InjectedClockTests {
    @Test("a request's deadline passes when the injected clock says so, not the wall's")
    func deadlineFollowsTheClock() async throws {
        let server = HTTP2Server(tls: try TestPKI.serverTLS(), handler: HoldingHandler())
        let port = try server.start()
        defer { server.stop() }
        let clock = ManualInstantClock()
        let client = HTTP2Client(
            configuration: .init(host: "127.0.0.1", port: port), tls: try TestPKI.clientTLS(), now: clock.now)
        defer { client.shutdown() }
        let outcome = Mutex<Result<HTTP2Response, HTTP2ClientError>?>(nil)
        client.execute(HTTP2Request(method: "GET", path: "/hold"), timeout: .seconds(30)) { result in
            outcome.withLock { $0 = result }
        }
        // Half a second of real time is nothing on a clock that does not move.
        try await Task.sleep(for: .milliseconds(500))
        #expect(outcome.withLock { $0 } == nil)
        clock.advance(by: .seconds(31))
        #expect(await eventually(within: 5) { outcome.withLock { $0 } != nil })
        guard case .failure(let error) = outcome.withLock({ $0 }) else {
            Issue.record("the held request did not fail: \(String(describing: outcome.withLock { $0 }))")
            return
        }
        #expect(error.code == .deadlineExceeded)
    }

    @Test("an idle connection sends PING once the injected clock passes the interval")
    func pingFollowsTheClock() async throws {
        let server = HTTP2Server(tls: try TestPKI.serverTLS(), handler: HoldingHandler())
        let port = try server.start()
        defer { server.stop() }
        let clock = ManualInstantClock()
        var configuration = HTTP2Client.Configuration(host: "127.0.0.1", port: port)
        configuration.pingInterval = .seconds(60)
        let client = HTTP2Client(configuration: configuration, tls: try TestPKI.clientTLS(), now: clock.now)
        defer { client.shutdown() }
        let response = try await client.execute(HTTP2Request(method: "GET", path: "/now"))
        #expect(response.status == 200)
        try await Task.sleep(for: .milliseconds(500))
        #expect(server.pingsReceived == 0)
        clock.advance(by: .seconds(61))
        #expect(await eventually(within: 5) { server.pingsReceived == 1 })
    }
}

/// Holds `/block` on the connection's thread until the test releases it, so the connection cannot
/// close when `stop()` asks it to.
private struct BlockingHandler: HTTP2ServerHandler {
    let entered = Flag()
    let release = DispatchSemaphore(value: 0)

    func handle(_ request: HTTP2ServerRequest, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        if request.path == "/block" {
            entered.set()
            // No timeout of its own: under a full test run the test's sleep once came back after more than a
            // minute, by which time a 60 s wait here had let the connection close and stop() return.
            // The test releases it on every path (a `defer`).
            release.wait()
        }
        return .respond(HTTP2ServerResponse(status: 200))
    }
}

/// A flag one thread raises and another reads.
private final class Flag: Sendable {
    private let raised = Mutex(false)
    func set() { raised.withLock { $0 = true } }
    var isSet: Bool { raised.withLock { $0 } }
}

@Suite("The server's stop() reads the injected clock")
struct HTTP2ServerStopClockTests {
    @Test("stop() waits for a stuck connection until the injected clock passes its grace, not the wall's")
    func stopWaitsByTheClock() async throws {
        let clock = ManualInstantClock()
        let handler = BlockingHandler()
        defer { handler.release.signal() }
        let server = HTTP2Server(
            tls: try TestPKI.serverTLS(), handler: handler, clock: ConnectionClock(now: clock.now))
        let port = try server.start()
        let client = HTTP2Client(configuration: .init(host: "127.0.0.1", port: port), tls: try TestPKI.clientTLS())
        defer { client.shutdown() }
        client.execute(HTTP2Request(method: "GET", path: "/block"), timeout: .seconds(30)) { _ in }
        #expect(await eventually(within: 10) { handler.entered.isSet })
        let stopped = Flag()
        let stopper = Thread {
            server.stop()
            stopped.set()
        }
        stopper.start()
        // Longer than the grace in real time: a stop() reading the machine's clock has returned by now.
        try await Task.sleep(for: HTTP2Server.stopGrace + .milliseconds(700))
        #expect(!stopped.isSet, "stop() returned while the injected clock stood still")
        #expect(server.liveConnections == 1)
        clock.advance(by: HTTP2Server.stopGrace + .milliseconds(1))
        #expect(await eventually(within: 5) { stopped.isSet })
    }
}
