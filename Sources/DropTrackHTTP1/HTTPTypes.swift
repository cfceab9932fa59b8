/// One complete HTTP/1.1 request, body included, as an `HTTPHandler` sees it.
public struct HTTPRequest: Sendable {
    /// The request method as sent: `"GET"`, `"POST"`, …
    public var method: String
    /// The percent-decoded path, without the query string.
    public var path: String
    /// Percent-decoded query parameters (`+` reads as a space). A repeated name keeps its last value.
    public var query: [String: String]
    /// Request headers with lowercase names. Repeated headers are joined with `", "`.
    public var headers: [String: String]
    /// The request body.
    public var body: [UInt8]
    /// The client's IPv4 address as text (`127.0.0.1`), as the socket says, never a header; empty when
    /// unknown. Behind a reverse proxy on the same host it is the proxy's.
    public var clientAddress: String

    /// Creates a request (tests build these to call handlers directly).
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: [UInt8] = [], clientAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
    }
}

/// A complete response. The server adds `Content-Length` (and `Date`) itself.
public struct HTTPResponse: Sendable {
    /// The status code, 200–999. Anything else (1xx included) reaches the client as a 500.
    public var status: Int
    /// Response headers in the order they are sent. `Content-Length` is the server's and is dropped here, as are
    /// headers with line breaks.
    public var headers: [(name: String, value: String)]
    /// The response body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with `Content-Type: application/json; charset=utf-8`.
    public static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [(name: "Content-Type", value: "application/json; charset=utf-8")], body: body)
    }

    /// A text response, `text/plain; charset=utf-8` unless `contentType` says otherwise.
    public static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8")
        -> HTTPResponse
    {
        HTTPResponse(status: status, headers: [(name: "Content-Type", value: contentType)], body: Array(text.utf8))
    }
}

/// What a handler answers with: a complete response, or a Server-Sent Events stream.
public enum HTTPReply: Sendable {
    /// A complete response.
    case response(HTTPResponse)
    /// Starts an SSE response (status 200, `Content-Type: text/event-stream`, `Cache-Control: no-cache`). `start` is
    /// called once with the stream, after the response has begun; keep the stream to send events.
    case eventStream(@Sendable (EventStream) -> Void)
}

/// Answers the requests of an `HTTPServer`.
public protocol HTTPHandler: Sendable {
    /// Answers one complete request. Called on the server's worker threads, several at once, so it must be
    /// thread-safe; it may block briefly (database work), holding up only the connections of its thread.
    func handle(_ request: HTTPRequest) -> HTTPReply
}

/// Why an `HTTPServer` could not start.
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the address involved.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
