import Foundation

/// A call to the server that did not succeed, mirroring its `{"error": {"code", "message"}}` bodies.
/// Never carries a token or a credential.
public struct DeviceAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the caller can do about it.
    public enum Remedy: Sendable, Equatable {
        /// 401: ask the app's backend for a fresh credential, then try once more.
        case refreshCredential
        /// 429, 5xx, the network or the credential provider: the same call can succeed later.
        case retryLater
        /// Any other 4xx: the request itself is wrong; retrying cannot help.
        case giveUp
    }

    /// The HTTP status; nil when no answer came.
    public var status: Int?
    /// The server's code (`rate_limited`, `credential_expired`, `no_route`…) or `transport`/`credential_unavailable`.
    public var code: String
    /// What happened and the fix, as the server words it.
    public var message: String
    /// The server's `Retry-After`, in seconds.
    public var retryAfter: Double?

    public init(status: Int?, code: String, message: String, retryAfter: Double? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var remedy: Remedy {
        guard let status else { return .retryLater }
        switch status {
        case 401: return .refreshCredential
        case 408, 429, 500...599: return .retryLater
        default: return .giveUp
        }
    }

    /// The server does not have the route (an older server): the lifecycle and reconciliation routes
    /// arrived after the token routes.
    public var isMissingRoute: Bool { status == 404 && code == "no_route" }

    public var description: String {
        "\(status.map { "HTTP \($0) " } ?? "")\(code): \(message)"
    }

    /// No answer: the server is down or the network is.
    static func transport(_ error: any Error) -> DeviceAPIError {
        DeviceAPIError(status: nil, code: "transport", message: "no answer from the server (\(type(of: error)))")
    }
}
