import DropTrackCore

/// One POST to a URL that configuration chose (a webhook receiver), and the limits it runs under.
public struct OutboundPost: Sendable {
    /// `https://…` (or `http://…` when `limits.allowPlainHTTP`).
    public var url: String
    /// Request headers, sent as given; `Expect` and `User-Agent` are set by the transport.
    public var headers: [(name: String, value: String)]
    /// The request body.
    public var body: [UInt8]
    /// What the attempt may do.
    public var limits: OutboundLimits

    public init(url: String, headers: [(name: String, value: String)], body: [UInt8], limits: OutboundLimits) {
        self.url = url
        self.headers = headers
        self.body = body
        self.limits = limits
    }
}

/// The bounds of one attempt. A receiver chose by a tenant is untrusted: it may hang, answer forever,
/// compress a gigabyte into a megabyte, redirect to an internal address, or resolve to one.
public struct OutboundLimits: Sendable, Equatable {
    /// The whole attempt, from resolving the name to the answer's last byte: past it the attempt is ended.
    public var deadlineSeconds: Double
    /// Resolving and connecting (TLS handshake included), within the deadline.
    public var connectSeconds: Double
    /// The addresses a connection may be made to, checked on each address resolved, before connecting.
    public var addresses: OutboundAddressPolicy
    /// `http://` is taken besides `https://`.
    public var allowPlainHTTP: Bool
    /// The answer's body is read up to this many bytes, then the connection is dropped: the status is
    /// the answer, and the body is never decoded (no `Accept-Encoding`), so a compressed bomb stays small.
    public var answerBytes: Int
    /// The answer's status line and headers together, at most.
    public var headerBytes: Int

    public init(
        deadlineSeconds: Double, connectSeconds: Double? = nil, addresses: OutboundAddressPolicy = .init(),
        allowPlainHTTP: Bool = false, answerBytes: Int = 4096, headerBytes: Int = 16 * 1024
    ) {
        self.deadlineSeconds = deadlineSeconds
        self.connectSeconds = min(deadlineSeconds, connectSeconds ?? 5)
        self.addresses = addresses
        self.allowPlainHTTP = allowPlainHTTP
        self.answerBytes = answerBytes
        self.headerBytes = headerBytes
    }
}

/// What became of an attempt.
public enum OutboundAnswer: Sendable, Equatable {
    /// The receiver answered this status within the deadline; for a redirect (3xx), where it pointed
    /// (never followed).
    case status(Int, location: String?)
    /// No status came.
    case failed(OutboundFailure)
}

/// Why an attempt got no status.
public enum OutboundFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The deadline passed first.
    case timedOut(seconds: Double)
    /// Every address the name resolved to was refused by the address policy, before any connection.
    case refusedAddress(IPAddress, AddressScope)
    /// The URL's scheme is not allowed (`http://` without `allowPlainHTTP`, or anything but HTTP).
    case schemeNotAllowed(String)
    /// The status line and headers passed `headerBytes`.
    case headersTooLarge(limit: Int)
    /// Resolving, connecting, TLS or HTTP failed: libcurl's words.
    case transport(String)

    public var description: String {
        switch self {
        case .timedOut(let seconds): "no answer within \(Self.seconds(seconds))"
        case .refusedAddress(let address, let scope): "refused to connect to \(address), \(scope.explanation)"
        case .schemeNotAllowed(let url): "the URL's scheme is not allowed: \(url)"
        case .headersTooLarge(let limit): "the answer's headers passed \(limit / 1024) KiB; the attempt was ended"
        case .transport(let why): why
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? "\(Int(value)) s" : "\(value) s"
    }
}
