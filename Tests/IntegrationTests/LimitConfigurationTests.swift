import DropTrackDispatch
import DropTrackTesting
import Foundation
import Testing

/// The connection and stream limits come from the configuration, so an operator behind a proxy on the
/// same host (every client from one address) can raise them.
@Suite("Limits from the configuration")
struct LimitConfigurationTests {
    @Test("maxConnectionsPerClient and maxEventStreamsPerKey reach the server")
    func limitsReachTheServer() throws {
        let server = try ServerHarness(engine: .memory) {
            $0.maxConnectionsPerClient = 3
            $0.maxEventStreamsPerKey = 2
        }
        defer { server.stop() }
        var streams: [RawConnection] = []
        for _ in 0..<2 {
            let stream = try RawConnection(port: server.port)
            try stream.send("GET /v1/events HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer key-app1\r\n\r\n")
            #expect(try stream.readHead(timeout: .seconds(5)).status == 200)
            streams.append(stream)
        }
        let third = try RawConnection(port: server.port)
        try third.send(
            "GET /v1/events HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer key-app1\r\nConnection: close\r\n\r\n")
        let refused = try third.readResponse(timeout: .seconds(5))
        #expect(refused.status == 429 && refused.text.contains("too_many_streams"), "\(refused.text)")
        // The server ends the refused stream's connection; only then is its place free.
        #expect(third.waitForClose(timeout: .seconds(5)))
        third.close()
        // Two streams and one more connection make three from this address: the next is refused at once.
        // The refused stream's place comes back once the server has closed it, which a loaded machine may take a
        // moment to do: a third connection is tried until one is served.
        var held = try RawConnection(port: server.port)
        for _ in 0..<50 {
            try held.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            if try held.readResponse(timeout: .seconds(5)).status == 200 { break }
            held.close()
            usleep(100_000)
            held = try RawConnection(port: server.port)
        }
        let fourth = try RawConnection(port: server.port)
        let answer = try fourth.readResponse(timeout: .seconds(5))
        #expect(answer.status == 429 && answer.headers["retry-after"] != nil, "\(answer.text)")
        for connection in streams + [held, fourth] { connection.close() }
    }

    @Test("event streams must stay below the connection limit")
    func streamsBelowConnections() {
        var configuration = ServerConfiguration(listen: "127.0.0.1:0", store: "memory")
        configuration.maxConnections = 100
        configuration.maxEventStreams = 100
        #expect {
            try configuration.validate()
        } throws: { error in
            (error as? ConfigurationError)?.key == "maxEventStreams"
        }
    }
}
