import DropTrackHTTP1
import DropTrackTesting
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `/stuck` blocks until released (30 s at most), `/sse` opens a stream, anything else answers 200 at once.
private final class LimitsHandler: HTTPHandler {
    let release = DispatchSemaphore(value: 0)
    let stuckStarted = Atomic<Int>(0)
    let requests = Atomic<Int>(0)
    let streams = Mutex<[EventStream]>([])

    func handle(_ request: HTTPRequest) -> HTTPReply {
        requests.add(1, ordering: .sequentiallyConsistent)
        if request.path == "/stuck" {
            stuckStarted.add(1, ordering: .sequentiallyConsistent)
            _ = release.wait(timeout: .now() + 30)
            return .response(.text(200, "unstuck"))
        }
        if request.path == "/sse" {
            return .eventStream { [self] stream in streams.withLock { $0.append(stream) } }
        }
        return .response(.text(200, "ok \(request.body.count)"))
    }
}

@Suite("HTTP/1.1 server: connection caps, slow clients and the stop deadline")
struct HTTP1LimitsTests {
    /// Opens `count` connections, each answered once so the server has surely counted it.
    private func openServed(_ count: Int, port: Int) throws -> [RawConnection] {
        try (0..<count).map { _ in
            let connection = try RawConnection(port: port)
            try connection.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
            return connection
        }
    }

    @Test("past the per-address cap the next connection gets 429 with Retry-After at once, then room comes back")
    func perAddressLimit() throws {
        let server = HTTPServer(
            handler: LimitsHandler(), limits: HTTPServerLimits(maximumConnectionsPerAddress: 5, retryAfterSeconds: 7))
        let port = try server.start(port: 0)
        defer { server.stop() }
        var held = try openServed(5, port: port)
        #expect(server.openConnections == 5)

        let sixth = try RawConnection(port: port)
        let started = ContinuousClock.now
        let refusal = try sixth.readResponse(timeout: .seconds(3))
        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(refusal.status == 429)
        #expect(refusal.headers["retry-after"] == "7")
        #expect(refusal.headers["connection"] == "close")
        #expect(refusal.text.contains(#""code":"too_many_connections""#))
        #expect(refusal.text.contains("more than 5 open connections from your address"))
        #expect(sixth.waitForClose(timeout: .seconds(3)))
        #expect(server.openConnections == 5)

        held.removeLast().close()
        #expect(eventually { server.openConnections == 4 })
        let again = try openServed(1, port: port)
        #expect(again.count == 1)
        #expect(held.count == 4)
    }

    @Test("past the global cap the next connection gets 503 with Retry-After at once, not a wait in the backlog")
    func globalLimit() throws {
        let handler = LimitsHandler()
        let server = HTTPServer(
            handler: handler, limits: HTTPServerLimits(maximumConnections: 3, maximumConnectionsPerAddress: 100))
        let port = try server.start(port: 0)
        defer { server.stop() }
        let held = try openServed(3, port: port)
        for index in 0..<6 {
            let extra = try RawConnection(port: port)
            // Half send at once, half after a pause (when the refusal has surely been written and the socket shut
            // down): neither request may reach the handler.
            if index % 2 == 1 { usleep(100_000) }
            try? extra.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            let started = ContinuousClock.now
            let refusal = try extra.readResponse(timeout: .seconds(3))
            #expect(ContinuousClock.now - started < .seconds(1))
            #expect(refusal.status == 503)
            #expect(refusal.headers["retry-after"] == "5")
            #expect(refusal.headers["connection"] == "close")
            #expect(refusal.text.contains(#""code":"unavailable""#))
            #expect(extra.waitForClose(timeout: .seconds(3)))
        }
        #expect(server.openConnections == 3)
        #expect(held.count == 3)
        usleep(200_000)
        #expect(handler.requests.load(ordering: .sequentiallyConsistent) == 3)
    }

    @Test("a header trickle (a line every 200 ms) is cut with 408 at the header deadline; an idle connection too")
    func headerTrickle() throws {
        let server = HTTPServer(handler: LimitsHandler(), limits: HTTPServerLimits(headerTimeout: .seconds(1)))
        let port = try server.start(port: 0)
        defer { server.stop() }
        let trickle = try RawConnection(port: port)
        let started = ContinuousClock.now
        try trickle.send("GET /slow HTTP/1.1\r\nHost: t\r\n")
        var lines = 0
        // Each line would restart libmicrohttpd's idle timeout; only the header deadline can end this.
        while lines < 40, (try? trickle.send("X-Trickle-\(lines): 1\r\n")) != nil {
            lines += 1
            if trickle.waitForClose(timeout: .milliseconds(200)) { break }
        }
        let elapsed = ContinuousClock.now - started
        #expect(trickle.sawEOF)
        #expect(elapsed > .milliseconds(900) && elapsed < .seconds(3), "cut after \(elapsed)")
        #expect(lines < 20)
        #expect(eventually { server.openConnections == 0 })

        // The deadline restarts after each response: a keep-alive connection left idle is closed after it too,
        // without a 408 (one could meet the client's next request on the wire and be taken for its answer).
        let idle = try RawConnection(port: port)
        try idle.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try idle.readResponse().status == 200)
        let idleFrom = ContinuousClock.now
        #expect(idle.waitForClose(timeout: .seconds(4)))
        #expect(ContinuousClock.now - idleFrom > .milliseconds(900))
        #expect(idle.receivedAfterClose.isEmpty, "nothing was written before the close")
    }

    @Test("a body slower than the minimum rate is cut with 408; a fast one and a long SSE stream are not")
    func slowBody() throws {
        let handler = LimitsHandler()
        let limits = HTTPServerLimits(
            headerTimeout: .seconds(1), bodyTimeout: .seconds(1), minimumBodyBytesPerSecond: 1000)
        let server = HTTPServer(handler: handler, heartbeat: .milliseconds(200), limits: limits)
        let port = try server.start(port: 0)
        defer { server.stop() }
        let stream = try RawConnection(port: port)
        try stream.send("GET /sse HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try stream.readHead().status == 200)

        let slow = try RawConnection(port: port)
        try slow.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
        let started = ContinuousClock.now
        var sent = 0
        while sent < 100, (try? slow.send(String(repeating: "b", count: 10))) != nil {
            sent += 1
            if slow.waitForClose(timeout: .milliseconds(100)) { break }
        }
        let elapsed = ContinuousClock.now - started
        #expect(slow.sawEOF)
        #expect(elapsed > .milliseconds(900) && elapsed < .seconds(4), "cut after \(elapsed)")

        let fast = try RawConnection(port: port)
        try fast.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 3000\r\n\r\n")
        for _ in 0..<3 {
            usleep(400_000)
            try fast.send(String(repeating: "f", count: 1000))
        }
        #expect(try fast.readResponse().text == "ok 3000")

        // The stream has outlived both deadlines several times over and still carries events.
        let alive = try #require(handler.streams.withLock { $0.first })
        #expect(!alive.isClosed)
        alive.send(data: "still here")
        var text = ""
        let deadline = ContinuousClock.now + .seconds(5)
        while !text.contains("data: still here"), let chunk = try stream.readChunk(timeout: deadline - .now) {
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text.contains("data: still here"))
    }

    @Test("stop() returns within its deadline while a handler is stuck, and its client sees the connection end")
    func stopDeadline() throws {
        let handler = LimitsHandler()
        let server = HTTPServer(handler: handler, limits: HTTPServerLimits(stopDeadline: .seconds(1)))
        let port = try server.start(port: 0)
        defer { handler.release.signal() }
        let client = try RawConnection(port: port)
        try client.send("GET /stuck HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(eventually { handler.stuckStarted.load(ordering: .sequentiallyConsistent) == 1 })

        let started = ContinuousClock.now
        server.stop()
        let took = ContinuousClock.now - started
        #expect(took >= .milliseconds(900) && took < .seconds(3), "stop took \(took)")
        #expect(connectionRefused(port: port))
        #expect(client.waitForClose(timeout: .seconds(2)))
        #expect(server.stop(deadline: .seconds(1)))  // already stopped: at once
    }
}
