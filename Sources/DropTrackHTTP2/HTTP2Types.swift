/// One header field. `neverIndex` keeps it out of HPACK's dynamic table (APNs asks for this on
/// `:path`, which differs with every device token).
public struct HTTPHeader: Sendable, Equatable {
    /// The lowercase field name.
    public var name: String
    /// The field value.
    public var value: String
    /// Send as "literal never indexed".
    public var neverIndex: Bool

    /// Creates a header.
    public init(_ name: String, _ value: String, neverIndex: Bool = false) {
        self.name = name
        self.value = value
        self.neverIndex = neverIndex
    }
}

extension Array where Element == HTTPHeader {
    /// The first value of a header. `name` must be lowercase, as HTTP/2 field names are.
    public func value(of name: String) -> String? {
        for header in self where header.name == name { return header.value }
        return nil
    }
}

/// A request for the HTTP/2 client. The scheme is always https; the authority comes from the client.
public struct HTTP2Request: Sendable {
    /// `POST`, `GET`, `DELETE`, …
    public var method: String
    /// The path and query.
    public var path: String
    /// Regular headers (no pseudo-headers).
    public var headers: [HTTPHeader]
    /// The body; empty sends no DATA frame.
    public var body: [UInt8]
    /// Send `:path` as never-indexed.
    public var neverIndexPath: Bool

    /// Creates a request.
    public init(
        method: String, path: String, headers: [HTTPHeader] = [], body: [UInt8] = [], neverIndexPath: Bool = false
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.neverIndexPath = neverIndexPath
    }
}

/// A response from an HTTP/2 peer.
public struct HTTP2Response: Sendable {
    /// The `:status`.
    public var status: Int
    /// Regular response headers, names lowercase.
    public var headers: [HTTPHeader]
    /// The body bytes.
    public var body: [UInt8]
    /// The client connection it came on (0 for a response no client connection made): what
    /// `HTTP2Client.retire(connection:)` takes when an answer says the connection is spoiled.
    public internal(set) var connection: Int = 0

    /// Creates a response.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why an HTTP/2 request got no response.
public struct HTTP2ClientError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The deadline passed before the response arrived.
        public static let deadlineExceeded = Code("deadlineExceeded")
        /// TCP connect or the TLS handshake failed.
        public static let connectFailed = Code("connectFailed")
        /// The server does not speak h2 (ALPN).
        public static let protocolNotNegotiated = Code("protocolNotNegotiated")
        /// The connection dropped with the request in flight; the server may have processed it.
        public static let connectionLost = Code("connectionLost")
        /// The server reset the stream.
        public static let streamReset = Code("streamReset")
        /// The client was shut down.
        public static let shutdown = Code("shutdown")
        public var description: String { name }
    }

    /// The kind of failure; equality compares only this.
    public var code: Code
    /// Words for a person.
    public var message: String
    /// True when the server certainly did not process the request, so sending it again is safe.
    public var unprocessed: Bool

    public init(_ code: Code, _ message: String, unprocessed: Bool = false) {
        self.code = code
        self.message = message
        self.unprocessed = unprocessed
    }

    public static func == (a: HTTP2ClientError, b: HTTP2ClientError) -> Bool { a.code == b.code }

    public var description: String { "\(code): \(message)" }
}
