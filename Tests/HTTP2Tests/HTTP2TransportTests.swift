import DropTrackCrypto
import DropTrackHTTP2
import DropTrackTesting
import Foundation
import Synchronization
import Testing

/// Echoes the request back, with a few scripted misbehaviours keyed by path.
private final class EchoHandler: HTTP2ServerHandler {
    let requests = Mutex(0)
    let goAwayAt: Int?

    init(goAwayAt: Int? = nil) { self.goAwayAt = goAwayAt }

    func handle(_ request: HTTP2ServerRequest, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        let count = requests.withLock {
            $0 += 1
            return $0
        }
        if let goAwayAt, count == goAwayAt {
            return .goAway(errorCode: 0, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
        }
        if request.path.hasPrefix("/slow") {
            return .respondAfter(.milliseconds(300), HTTP2ServerResponse(status: 200))
        }
        if request.path == "/reset" { return .resetConnection }
        return .respond(
            HTTP2ServerResponse(
                status: 200, headers: [HTTPHeader("x-path", request.path), HTTPHeader("x-method", request.method)],
                body: request.body))
    }
}

@Suite("HTTP/2 transport over TLS")
struct HTTP2TransportTests {
    @Test("a request and its echo travel over TLS with ALPN h2")
    func roundTrip() async throws {
        let server = HTTP2Server(tls: try TestPKI.serverTLS(), handler: EchoHandler())
        let port = try server.start()
        defer { server.stop() }
        let client = HTTP2Client(
            configuration: .init(host: "127.0.0.1", port: port), tls: try TestPKI.clientTLS())
        defer { client.shutdown() }
        let response = try await client.execute(HTTP2Request(method: "POST", path: "/echo", body: Array("hello".utf8)))
        #expect(response.status == 200)
        #expect(response.headers.value(of: "x-path") == "/echo")
        #expect(String(decoding: response.body, as: UTF8.self) == "hello")
    }

    @Test("hostname verification refuses a certificate not issued for the name")
    func hostnameVerification() async throws {
        let server = HTTP2Server(tls: try TestPKI.serverTLS(), handler: EchoHandler())
        let port = try server.start()
        defer { server.stop() }
        let client = HTTP2Client(
            configuration: .init(
                host: "127.0.0.1", port: port, serverName: "api.push.apple.com", reconnectDelay: .seconds(5)),
            tls: try TestPKI.clientTLS())
        defer { client.shutdown() }
        await #expect(throws: HTTP2ClientError(.connectFailed, "")) {
            _ = try await client.execute(HTTP2Request(method: "GET", path: "/"), timeout: .seconds(2))
        }
    }

    @Test("a thousand concurrent requests share one connection")
    func multiplexing() async throws {
        let server = HTTP2Server(tls: try TestPKI.serverTLS(), handler: EchoHandler())
        let port = try server.start()
        defer { server.stop() }
        let client = HTTP2Client(configuration: .init(host: "127.0.0.1", port: port), tls: try TestPKI.clientTLS())
        defer { client.shutdown() }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<1000 {
                group.addTask {
                    try await client.execute(HTTP2Request(method: "POST", path: "/r/\(index)", body: [1, 2, 3])).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 1000)
        #expect(statuses.allSatisfy { $0 == 200 })
        #expect(client.connectionsOpened == 1, "connections ended: \(client.connectionEndReasons)")
    }

    @Test("a GOAWAY in mid-flight loses no request: refused streams go out on a new connection")
    func goAwayMidFlight() async throws {
        let handler = EchoHandler(goAwayAt: 50)
        let server = HTTP2Server(tls: try TestPKI.serverTLS(), handler: handler)
        let port = try server.start()
        defer { server.stop() }
        let client = HTTP2Client(configuration: .init(host: "127.0.0.1", port: port), tls: try TestPKI.clientTLS())
        defer { client.shutdown() }
        let paths = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let response = try await client.execute(HTTP2Request(method: "POST", path: "/p/\(index)"))
                    return response.status == 200 ? response.headers.value(of: "x-path") : nil
                }
            }
            return try await group.reduce(into: Set<String>()) { if let path = $1 { $0.insert(path) } }
        }
        #expect(paths.count == 200)
        #expect(client.connectionsOpened >= 2)
    }

    @Test("a request past its deadline fails with deadlineExceeded, others still succeed")
    func deadline() async throws {
        let server = HTTP2Server(tls: try TestPKI.serverTLS(), handler: EchoHandler())
        let port = try server.start()
        defer { server.stop() }
        let client = HTTP2Client(configuration: .init(host: "127.0.0.1", port: port), tls: try TestPKI.clientTLS())
        defer { client.shutdown() }
        await #expect(throws: HTTP2ClientError(.deadlineExceeded, "")) {
            _ = try await client.execute(HTTP2Request(method: "GET", path: "/slow"), timeout: .milliseconds(100))
        }
        let response = try await client.execute(HTTP2Request(method: "GET", path: "/fast"))
        #expect(response.status == 200)
    }

    @Test("a connection reset fails the request in flight as connectionLost, and the next request reconnects")
    func connectionReset() async throws {
        let server = HTTP2Server(tls: try TestPKI.serverTLS(), handler: EchoHandler())
        let port = try server.start()
        defer { server.stop() }
        let client = HTTP2Client(configuration: .init(host: "127.0.0.1", port: port), tls: try TestPKI.clientTLS())
        defer { client.shutdown() }
        await #expect(throws: HTTP2ClientError(.connectionLost, "")) {
            _ = try await client.execute(HTTP2Request(method: "GET", path: "/reset"))
        }
        let response = try await client.execute(HTTP2Request(method: "GET", path: "/after"))
        #expect(response.status == 200)
        #expect(client.connectionsOpened == 2)
    }

    @Test("nothing listening: the request fails with connectFailed once its deadline passes")
    func refused() async throws {
        let (fd, port) = try { () throws -> (Int32, Int) in
            let server = HTTP2Server(tls: try TestPKI.serverTLS(), handler: EchoHandler())
            let port = try server.start()
            server.stop()
            return (0, port)
        }()
        _ = fd
        let client = HTTP2Client(configuration: .init(host: "127.0.0.1", port: port), tls: try TestPKI.clientTLS())
        defer { client.shutdown() }
        await #expect(throws: HTTP2ClientError(.connectFailed, "")) {
            _ = try await client.execute(HTTP2Request(method: "GET", path: "/"), timeout: .milliseconds(500))
        }
    }
}
