import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackWire
import Foundation

/// How an `FCMClient` reaches FCM.
public struct FCMClientConfiguration: Sendable {
    /// The service account: project, signing key, token URI.
    public var account: GoogleServiceAccount
    /// FCM's base URL (`https://fcm.googleapis.com`, or the emulator).
    public var baseURL: String
    /// A CA file to trust instead of the system store (tests and the emulator).
    public var caFile: String?
    /// Deadline per request.
    public var requestTimeout: Duration
    /// Connections to FCM at most.
    public var maxConnections: Int

    /// Creates a configuration.
    public init(
        account: GoogleServiceAccount, baseURL: String = "https://fcm.googleapis.com", caFile: String? = nil,
        requestTimeout: Duration = .seconds(10), maxConnections: Int = 4
    ) {
        self.account = account
        self.baseURL = baseURL
        self.caFile = caFile
        self.requestTimeout = requestTimeout
        self.maxConnections = maxConnections
    }
}

/// The outcome of one FCM send.
public struct FCMSendResult: Sendable {
    /// What happened.
    public enum Outcome: Sendable {
        /// FCM answered.
        case answered(FCMResult)
        /// The message broke a rule FCM enforces, so it was not sent.
        case invalid(FCMRequestError)
        /// No access token: the token endpoint refused or could not be reached.
        case authFailure(GoogleOAuthError)
        /// No answer from FCM.
        case transportFailure(HTTP2ClientError)
    }

    /// What happened.
    public var outcome: Outcome
    /// Time from send to answer.
    public var latency: Duration
    /// Requests made to FCM (2 when a 401 refreshed the access token and the send was retried).
    public var attempts: Int

    /// Whether the message reached FCM, which decides whether a start may be sent again. Without an
    /// access token nothing was sent.
    public var reach: SendReach {
        switch outcome {
        case .answered: .answered
        case .invalid, .authFailure: .notSent
        case .transportFailure(let error): error.unprocessed ? .notSent : .inDoubt
        }
    }

    /// The FCM answer, when there was one.
    public var result: FCMResult? { if case .answered(let result) = outcome { result } else { nil } }
    /// True when FCM accepted the message.
    public var isSuccess: Bool { result?.isSuccess ?? false }
    /// The status, or 0 without an answer.
    public var status: Int { result?.status ?? 0 }

    /// What to do next.
    public var remedy: PushRemedy {
        switch outcome {
        case .answered(let result): result.remedy
        case .invalid: .rejectRequest
        case .authFailure(let error): error.isTransient ? .retry(after: nil) : .rejectRequest
        case .transportFailure(let error): error.code == .connectionLost ? .reconnect : .retry(after: nil)
        }
    }

    /// A short reason name for logs and metrics.
    public var reasonName: String {
        switch outcome {
        case .answered(let result): result.errorCode?.rawValue ?? "ok"
        case .invalid: "invalid_request"
        case .authFailure(let error): "oauth_\(error.code)"
        case .transportFailure(let error): error.code.description
        }
    }

    /// One line for a person.
    public var explanation: String {
        switch outcome {
        case .answered(let result): result.explanation
        case .invalid(let error): "not sent: \(error.message) [\(error.field)]"
        case .authFailure(let error):
            TLSFailure.isCertificateVerification("\(error)")
                ? "no access token: \(error). \(TLSFailure.advice)"
                : "no access token: \(error). Remedy: \(remedy.advice)"
        case .transportFailure(let error):
            TLSFailure.isCertificateVerification(error.message)
                ? "no answer from FCM: \(error.message). \(TLSFailure.advice)"
                : "no answer from FCM: \(error.message). Remedy: \(remedy.advice)"
        }
    }
}

/// An FCM HTTP v1 client: OAuth2 from a service account (cached, single-flight refresh), sends
/// multiplexed over HTTP/2 on the shared transport, every error typed with its remedy.
public final class FCMClient: Sendable {
    /// The configuration.
    public let configuration: FCMClientConfiguration
    /// The access-token source.
    public let tokens: GoogleAccessTokens
    private let http: HTTP2Client
    private let sendPath: String

    /// Creates a client; connections open on first use.
    public init(
        configuration: FCMClientConfiguration, clock: any WallClock = SystemWallClock(), logger: Logger = .disabled
    )
        throws
    {
        guard let origin = HTTPSOrigin(configuration.baseURL) else {
            throw ServiceAccountError(field: "base-url", "the FCM base URL must be https://host[:port]")
        }
        self.configuration = configuration
        let tls = try TLSContext(clientALPN: ["h2"], caFile: configuration.caFile)
        tokens = try GoogleAccessTokens(account: configuration.account, tls: tls, clock: clock)
        http = HTTP2Client(
            configuration: .init(
                host: origin.host, port: origin.port, maxConnections: configuration.maxConnections,
                requestTimeout: configuration.requestTimeout), tls: tls, logger: logger)
        sendPath = origin.path + "/v1/projects/\(configuration.account.projectID)/messages:send"
    }

    /// Connections opened to FCM so far.
    public var connectionsOpened: Int { http.connectionsOpened }

    /// Google's clock minus this machine's, from the `Date` header of its latest FCM answer.
    public var providerClockOffset: Double? { http.peerClockOffset }

    /// Closes every connection.
    public func shutdown() {
        http.shutdown()
        tokens.shutdown()
    }

    /// Sends a message; `completion` runs on a connection thread. A 401 refreshes the access token
    /// and resends once.
    public func send(
        _ message: FCMMessage, validateOnly: Bool = false, completion: @escaping @Sendable (FCMSendResult) -> Void
    ) {
        do throws(FCMRequestError) {
            try message.validate()
        } catch {
            completion(FCMSendResult(outcome: .invalid(error), latency: .zero, attempts: 0))
            return
        }
        attempt(
            body: message.requestBody(validateOnly: validateOnly), rejected: nil, number: 1, started: .now,
            completion: completion)
    }

    /// Sends a message and waits for the outcome.
    public func send(_ message: FCMMessage, validateOnly: Bool = false) async -> FCMSendResult {
        await withCheckedContinuation { continuation in
            send(message, validateOnly: validateOnly) { continuation.resume(returning: $0) }
        }
    }

    private func attempt(
        body: [UInt8], rejected: String?, number: Int, started: ContinuousClock.Instant,
        completion: @escaping @Sendable (FCMSendResult) -> Void
    ) {
        tokens.withToken(rejecting: rejected) { [self] token in
            switch token {
            case .failure(let error):
                completion(FCMSendResult(outcome: .authFailure(error), latency: .now - started, attempts: number - 1))
            case .success(let accessToken):
                let request = HTTP2Request(
                    method: "POST", path: sendPath,
                    headers: [
                        HTTPHeader("authorization", "Bearer " + accessToken),
                        HTTPHeader("content-type", "application/json"),
                    ], body: body)
                http.execute(request) { [self] response in
                    switch response {
                    case .failure(let error):
                        completion(
                            FCMSendResult(outcome: .transportFailure(error), latency: .now - started, attempts: number))
                    case .success(let answer):
                        let result = FCMResult(
                            status: answer.status, headers: answer.headers.map { ($0.name, $0.value) },
                            body: answer.body)
                        if result.errorCode == .unauthenticated && number == 1 {
                            attempt(
                                body: body, rejected: accessToken, number: 2, started: started, completion: completion)
                            return
                        }
                        completion(FCMSendResult(outcome: .answered(result), latency: .now - started, attempts: number))
                    }
                }
            }
        }
    }
}
