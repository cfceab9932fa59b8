import DropTrackHTTP1
import DropTrackTesting
import Foundation
import Synchronization
import Testing

/// Records the paths it is asked for and answers 200 with the path.
final class PathRecorder: HTTPHandler {
    let paths = Mutex<[String]>([])

    func handle(_ request: HTTPRequest) -> HTTPReply {
        paths.withLock { $0.append(request.path) }
        return .response(.text(200, request.path))
    }
}

/// Request-smuggling and desync payloads against the server's strict checks: each must get a 400 naming the problem,
/// the connection must close, and whatever rode behind the headers must never reach the handler.
@Suite("HTTP/1.1 server: strict framing against request smuggling")
struct HTTP1SmugglingTests {
    /// A request that would be the second one if the first were framed leniently.
    static let smuggled = "GET /smuggled HTTP/1.1\r\nHost: t\r\n\r\n"

    static let cases: [(name: String, request: String, message: String)] = [
        (
            "Content-Length and Transfer-Encoding",
            "POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                + smuggled,
            "both Content-Length and Transfer-Encoding: send one"
        ),
        (
            "two different Content-Length headers",
            "POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n"
                + smuggled,
            "more than one Content-Length header: send one"
        ),
        (
            "two equal Content-Length headers",
            "POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n" + smuggled,
            "more than one Content-Length header: send one"
        ),
        (
            "space before the colon of Transfer-Encoding",
            "POST /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n" + smuggled,
            "a header name is empty or contains whitespace or a character not allowed in a token"
        ),
        (
            "a header name with a space inside",
            "GET /a HTTP/1.1\r\nHost: t\r\nContent Length: 5\r\n\r\n" + smuggled,
            "a header name is empty or contains whitespace or a character not allowed in a token"
        ),
        (
            "a header name with a separator", "GET /a HTTP/1.1\r\nHost: t\r\nX(y): 1\r\n\r\n" + smuggled,
            "a header name is empty or contains whitespace or a character not allowed in a token"
        ),
        (
            "bare LF everywhere", "GET /a HTTP/1.1\nHost: t\nX-A: 1\n\n" + smuggled,
            "every request line and header line must end with CRLF (a bare LF or a folded header was sent)"
        ),
        (
            "bare LF after the request line", "GET /a HTTP/1.1\nHost: t\r\n\r\n" + smuggled,
            "every request line and header line must end with CRLF (a bare LF or a folded header was sent)"
        ),
        (
            "bare LF after one header", "GET /a HTTP/1.1\r\nHost: t\nX-A: 1\r\n\r\n" + smuggled,
            "every request line and header line must end with CRLF (a bare LF or a folded header was sent)"
        ),
        (
            "bare LF after the last header", "GET /a HTTP/1.1\r\nHost: t\n\r\n" + smuggled,
            "every request line and header line must end with CRLF (a bare LF or a folded header was sent)"
        ),
        (
            "bare LF ending the head", "GET /a HTTP/1.1\r\nHost: t\r\n\n" + smuggled,
            "every request line and header line must end with CRLF (a bare LF or a folded header was sent)"
        ),
        (
            "a folded header", "GET /a HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n 2\r\n\r\n" + smuggled,
            "every request line and header line must end with CRLF (a bare LF or a folded header was sent)"
        ),
        (
            "a bare CR inside a header value",
            "POST /a HTTP/1.1\r\nHost: t\r\nX-A: 1\rTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n" + smuggled,
            "a header value contains a control character (a bare CR, for instance)"
        ),
        (
            "HTTP/1.1 without Host", "GET /a HTTP/1.1\r\nX-A: 1\r\n\r\n" + smuggled,
            "HTTP/1.1 requests need a Host header"
        ),
        (
            "two Host headers", "GET /a HTTP/1.1\r\nHost: t\r\nHost: u\r\n\r\n" + smuggled,
            "more than one Host header: send one"
        ),
        (
            "Transfer-Encoding: xchunked",
            "POST /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: xchunked\r\n\r\n" + smuggled,
            "the only Transfer-Encoding accepted is chunked"
        ),
        (
            "Transfer-Encoding: chunked with a trailing space",
            "POST /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked \r\n\r\n0\r\n\r\n" + smuggled,
            "the only Transfer-Encoding accepted is chunked"
        ),
        (
            "Transfer-Encoding: gzip, chunked",
            "POST /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + smuggled,
            "the only Transfer-Encoding accepted is chunked"
        ),
        (
            "two Transfer-Encoding headers",
            "POST /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                + smuggled,
            "more than one Transfer-Encoding header: send one"
        ),
        (
            "a space inside the request target", "GET /a HTTP/1.1 HTTP/1.1\r\nHost: t\r\n\r\n" + smuggled,
            "the request target contains whitespace or a control character"
        ),
    ]

    @Test("each smuggling payload gets a prompt 400 naming the problem, the connection closes, nothing rides along")
    func smugglingPayloads() throws {
        let handler = PathRecorder()
        let server = HTTPServer(handler: handler)
        let port = try server.start(port: 0)
        defer { server.stop() }
        for (name, request, message) in Self.cases {
            let connection = try RawConnection(port: port)
            try connection.send(request)
            let started = ContinuousClock.now
            let response = try connection.readResponse(timeout: .seconds(3))
            #expect(ContinuousClock.now - started < .seconds(2), "\(name): slow answer")
            #expect(response.status == 400, "\(name): got \(response.status)")
            #expect(response.headers["content-type"] == "application/json; charset=utf-8", "\(name)")
            #expect(response.headers["connection"]?.lowercased() == "close", "\(name)")
            #expect(
                response.text == #"{"error":{"code":"bad_request","message":"\#(message)"}}"#,
                "\(name): \(response.text)")
            #expect(connection.waitForClose(timeout: .seconds(3)), "\(name): connection left open")
        }
        #expect(handler.paths.withLock { $0 } == [])
    }

    @Test("well-formed requests still pass: chunked upload, Content-Length, HTTP/1.0 without Host, odd but valid names")
    func validRequestsPass() throws {
        let handler = PathRecorder()
        let server = HTTPServer(handler: handler)
        let port = try server.start(port: 0)
        defer { server.stop() }
        let connection = try RawConnection(port: port)
        for request in [
            "POST /chunked HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            "POST /length HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc",
            "GET /names HTTP/1.1\r\nHost: t\r\nX-!#$%&'*+.^_`|~: 1\r\nEmpty:\r\nSpaced:   v  \r\n\r\n",
        ] {
            try connection.send(request)
            #expect(try connection.readResponse().status == 200, "\(request.debugDescription)")
        }
        let old = try RawConnection(port: port)
        try old.send("GET /old HTTP/1.0\r\n\r\n")
        #expect(try old.readResponse().status == 200)
        #expect(handler.paths.withLock { $0 } == ["/chunked", "/length", "/names", "/old"])
    }
}
