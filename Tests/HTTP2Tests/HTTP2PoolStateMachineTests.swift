import Foundation
import Testing

@testable import DropTrackHTTP2

/// A connection whose phase, load and limit a test sets by hand.
final class FakeConnection: PoolConnection {
    let id: Int
    var phase: ClientConnectionHandle.Phase = .connecting
    var currentLoad = 0
    var currentCapacity = 100
    init(id: Int) { self.id = id }
}

/// Drives a pool machine the way `HTTP2Client` does.
struct PoolDriver {
    typealias Machine = ConnectionPoolStateMachine<FakeConnection>
    var pool: Machine
    var connections: [Int: FakeConnection] = [:]

    init(
        maxConnections: Int = 2, reconnectDelay: Duration = .milliseconds(100),
        maxReconnectDelay: Duration = .seconds(10), requestTimeout: Duration = .seconds(10)
    ) {
        pool = Machine(
            policy: .init(
                maxConnections: maxConnections, reconnectDelay: reconnectDelay, maxReconnectDelay: maxReconnectDelay,
                requestTimeout: requestTimeout),
            now: MachineScript.start)
    }

    /// Dispatches a request and says what happened, registering connections the pool opens.
    mutating func dispatch(_ path: String, at seconds: Double = 0, deadline: Double = 10) -> String {
        switch pool.dispatch(MachineScript.request(path, deadline: deadline), now: MachineScript.at(seconds)) {
        case .use(let connection): return "use \(connection.id)"
        case .open(let id):
            let connection = FakeConnection(id: id)
            connections[id] = connection
            pool.opened(connection)
            return "open \(id)"
        case .parked(let retryAt?): return "park, retry at \(retryAt - MachineScript.start)"
        case .parked(nil): return "park"
        case .fail(let error): return "fail \(MachineScript.words(error))"
        }
    }

    mutating func fail(_ id: Int, at seconds: Double = 0, jitter: Double = 1) -> Duration {
        pool.connectionFailed(
            connections[id]!, error: HTTP2ClientError(.connectFailed, "refused", unprocessed: true),
            now: MachineScript.at(seconds), jitter: jitter)
    }
}

@Suite("HTTP/2 client pool state machine")
struct HTTP2PoolStateMachineTests {
    @Test("a connection coming up takes every request; a full one makes the pool open another, up to maxConnections")
    func fullConnections() {
        var driver = PoolDriver(maxConnections: 2)
        #expect(driver.dispatch("/a") == "open 1")
        #expect(driver.dispatch("/b") == "use 1")
        let first = driver.connections[1]!
        first.phase = .ready
        first.currentCapacity = 2
        first.currentLoad = 1
        #expect(driver.dispatch("/c") == "use 1")
        first.currentLoad = 2
        #expect(driver.dispatch("/d") == "open 2")
        let second = driver.connections[2]!
        second.phase = .ready
        second.currentCapacity = 2
        second.currentLoad = 3
        // Both full and no room for a third: the request waits on the least loaded.
        #expect(driver.dispatch("/e") == "use 1")
        #expect(driver.pool.connectionsOpened == 2)
        // A draining connection takes nothing; a closed one is forgotten and its place reused.
        first.phase = .draining
        #expect(driver.dispatch("/f") == "use 2")
        first.phase = .closed
        #expect(driver.dispatch("/g") == "open 3")
    }

    @Test("connect failures back off, doubling, capped at min(maxReconnectDelay, requestTimeout / 2), jitter included")
    func backoff() {
        typealias Machine = PoolDriver.Machine
        let policy = Machine.Policy(
            maxConnections: 4, reconnectDelay: .milliseconds(100), maxReconnectDelay: .seconds(10),
            requestTimeout: .seconds(1))
        let delays = (1...6).map { Machine.reconnectDelay(afterFailures: $0, policy: policy) }
        #expect(
            delays == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500), .milliseconds(500),
                .milliseconds(500),
            ])
        let slowServer = Machine.Policy(
            maxConnections: 4, reconnectDelay: .seconds(1), maxReconnectDelay: .seconds(3), requestTimeout: .seconds(60)
        )
        #expect(
            (1...4).map { Machine.reconnectDelay(afterFailures: $0, policy: slowServer) } == [
                .seconds(1), .seconds(2), .seconds(3), .seconds(3),
            ])

        var driver = PoolDriver(requestTimeout: .seconds(1))
        #expect(driver.dispatch("/a") == "open 1")
        #expect(driver.fail(1) == .milliseconds(100))
        #expect(driver.pool.consecutiveFailures == 1)
        #expect(driver.dispatch("/b", at: 0.1) == "open 2")
        #expect(driver.fail(2, at: 0.1, jitter: 1.25) == .milliseconds(250))
        #expect(driver.dispatch("/c", at: 0.34) == "park, retry at 0.35 seconds")
        _ = driver.pool.retryDue(now: MachineScript.at(0.35))
        #expect(driver.dispatch("/c", at: 0.35) == "open 3")
        #expect(driver.fail(3, at: 0.35) == .milliseconds(400))
        #expect(driver.dispatch("/d", at: 0.75) == "open 4")
        // 800 ms doubled, but never beyond half the 1 s request timeout, even with jitter.
        #expect(driver.fail(4, at: 0.75, jitter: 1.25) == .milliseconds(500))
        #expect(driver.pool.endedReasons.count == 4)
        // A connection that comes up resets the count.
        #expect(driver.dispatch("/e", at: 1.25) == "open 5")
        driver.pool.connectionReady()
        #expect(driver.pool.consecutiveFailures == 0)
    }

    @Test("during backoff requests park behind one retry; at the retry they are sent, or fail if past their deadline")
    func parkedRetry() {
        var driver = PoolDriver()
        #expect(driver.dispatch("/a") == "open 1")
        #expect(driver.fail(1) == .milliseconds(100))
        #expect(driver.dispatch("/b", at: 0.01, deadline: 0.05) == "park, retry at 0.05 seconds")
        #expect(driver.dispatch("/c", at: 0.02) == "park")
        #expect(driver.pool.parked.count == 2)
        let (failed, retry) = driver.pool.retryDue(now: MachineScript.at(0.05))
        // The request that expired never left: unprocessed, and it says why no connection came up.
        #expect(failed.map { "\($0.0.request.path) \(MachineScript.words($0.1))" } == ["/b connectFailed unprocessed"])
        #expect(failed.first?.1.message.contains("refused") == true)
        #expect(retry.map(\.request.path) == ["/c"])
        // Still backing off: /c parks again and schedules the next retry when connecting is allowed.
        #expect(driver.dispatch("/c", at: 0.05) == "park, retry at 0.1 seconds")
        _ = driver.pool.retryDue(now: MachineScript.at(0.1))
        #expect(driver.dispatch("/c", at: 0.1) == "open 2")
    }

    @Test("a parked request with no connection attempt behind it fails as deadlineExceeded, unprocessed")
    func parkedWithoutConnectError() {
        var driver = PoolDriver(maxConnections: 1)
        #expect(driver.dispatch("/a") == "open 1")
        driver.connections[1]!.phase = .draining
        #expect(driver.dispatch("/b", deadline: 2) == "park, retry at 2.0 seconds")
        let (failed, retry) = driver.pool.retryDue(now: MachineScript.at(2))
        #expect(failed.map { MachineScript.words($0.1) } == ["deadlineExceeded unprocessed"])
        #expect(retry.isEmpty)
    }

    @Test("requests parked while every connection drains are dispatched again when one closes")
    func parkedUntilClose() {
        var driver = PoolDriver(maxConnections: 1)
        #expect(driver.dispatch("/a") == "open 1")
        driver.connections[1]!.phase = .draining
        #expect(driver.dispatch("/b") == "park, retry at 10.0 seconds")
        driver.connections[1]!.phase = .closed
        let again = driver.pool.connectionClosed(driver.connections[1]!, reason: "GOAWAY")
        #expect(again.map(\.request.path) == ["/b"])
        #expect(driver.dispatch("/b") == "open 2")
        #expect(driver.pool.endedReasons == ["GOAWAY"])
    }

    @Test("requeued requests go out again until their deadline, then fail as unprocessed")
    func requeue() {
        let driver = PoolDriver()
        let pending = MachineScript.request("/a", deadline: 1)
        #expect(driver.pool.requeueVerdict(pending, now: MachineScript.at(0.5)) == nil)
        let verdict = driver.pool.requeueVerdict(pending, now: MachineScript.at(1))
        #expect(verdict.map(MachineScript.words) == "deadlineExceeded unprocessed")
    }

    @Test("after shutdown parked requests are handed back and new ones fail as unprocessed")
    func shutdown() {
        var driver = PoolDriver()
        #expect(driver.dispatch("/a") == "open 1")
        _ = driver.fail(1)
        #expect(driver.dispatch("/b", at: 0.01) == "park, retry at 0.1 seconds")
        let (connections, parked) = driver.pool.shutdown()
        #expect(connections.isEmpty)
        #expect(parked.map(\.request.path) == ["/b"])
        #expect(driver.dispatch("/c") == "fail shutdown unprocessed")
    }
}
