import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import Foundation

/// Computes HMAC-SHA256. The domain knows no crypto: the composition root supplies one (OpenSSL).
public protocol WebhookSigner: Sendable {
    /// HMAC-SHA256 of `message` under `key`.
    func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8]
}

/// One signed POST to a receiver.
public struct WebhookRequest: Sendable, Equatable {
    public var url: String
    /// `DropTrack-Signature`, `DropTrack-Delivery`, `DropTrack-Event` and `Content-Type`.
    public var headers: [String: String]
    public var body: [UInt8]
    /// How long to wait for the answer.
    public var timeoutSeconds: Double
}

/// What became of a POST: the receiver's status, or why none came (a refused connection, a timeout).
public enum WebhookResponse: Sendable, Equatable {
    case status(Int)
    case failed(String)

    /// 2xx: delivered; anything else is tried again.
    public var delivered: Bool {
        if case .status(let code) = self { return (200..<300).contains(code) }
        return false
    }

    /// No answer came by the deadline, `webhookTimeoutSeconds`.
    public static func timedOut(after seconds: Double) -> WebhookResponse {
        .failed(
            "no answer within \(seconds == seconds.rounded() ? "\(Int(saturating: seconds))" : "\(seconds)") s (webhookTimeoutSeconds)"
        )
    }
}

/// Carries webhook POSTs (the runtime's on libcurl, `CurlWebhookTransport`; tests' in memory).
public protocol WebhookTransport: Sendable {
    /// Sends `request` and calls `completion` once, on any thread, within the request's timeout.
    func post(_ request: WebhookRequest, completion: @escaping @Sendable (WebhookResponse) -> Void)
}

extension WebhookRequest {
    /// The signature header's value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.
    public static func signature(secret: [UInt8], body: [UInt8], at unixSeconds: Int64, signer: any WebhookSigner)
        -> String
    {
        let message = Array("\(unixSeconds).".utf8) + body
        return "t=\(unixSeconds),v1=" + String(hexEncoding: signer.hmacSHA256(key: secret, message: message))
    }

    /// The signed request for `delivery` to `url`.
    static func signed(
        _ delivery: WebhookDelivery, url: String, secret: [UInt8], signer: any WebhookSigner, now: Date,
        timeoutSeconds: Double
    ) -> WebhookRequest {
        let body = Array(delivery.body.utf8)
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        return WebhookRequest(
            url: url,
            headers: [
                "Content-Type": "application/json",
                "DropTrack-Signature": signature(secret: secret, body: body, at: seconds, signer: signer),
                "DropTrack-Delivery": delivery.deliveryId, "DropTrack-Event": delivery.event,
            ], body: body, timeoutSeconds: timeoutSeconds)
    }
}

/// Where each endpoint is and the secret it is signed with, by app and endpoint id.
public struct WebhookEndpoints: Sendable {
    struct Endpoint: Sendable {
        var url: String
        var secret: [UInt8]
    }

    var endpoints: [String: Endpoint] = [:]

    /// No endpoints.
    public init() {}

    /// Adds an endpoint of `app`.
    public mutating func add(app: String, id: String, url: String, secret: [UInt8]) {
        endpoints[Self.key(app, id)] = Endpoint(url: url, secret: secret)
    }

    func endpoint(app: String, id: String) -> Endpoint? { endpoints[Self.key(app, id)] }

    private static func key(_ app: String, _ id: String) -> String { app + "\u{1F}" + id }

    /// Whether any endpoint is configured (the worker runs only then).
    public var isEmpty: Bool { endpoints.isEmpty }
}
