import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import Foundation
import Synchronization

/// A token-endpoint failure, typed after OAuth2's `error` values.
public struct GoogleOAuthError: Error, Equatable, CustomStringConvertible, Sendable {
    /// OAuth2's `error` (`invalid_grant`, `invalid_client`, …), or a transport code.
    public var code: String
    /// `error_description`, or what went wrong.
    public var detail: String
    /// The HTTP status, 0 without an answer.
    public var status: Int

    public init(code: String, detail: String, status: Int) {
        self.code = code
        self.detail = detail
        self.status = status
    }

    /// True when asking again later may work (the endpoint was down or overloaded).
    public var isTransient: Bool {
        status == 0 || status == 429 || status >= 500
            || ["internal_failure", "server_error", "temporarily_unavailable"].contains(code)
    }

    public var description: String {
        var text = "token endpoint \(status == 0 ? "unreachable" : "answered \(status)"): \(code)"
        if !detail.isEmpty { text += " (\(detail))" }
        if code == "invalid_grant" {
            text += ". Check the machine clock, and that the service-account key is current and not revoked"
        }
        return text
    }
}

/// OAuth2 access tokens for a service account: a JWT-bearer grant signed RS256, cached, and
/// refreshed 5 minutes before expiry or after a 401. The refresh is single-flight: callers that
/// arrive while it runs wait for the same result.
public final class GoogleAccessTokens: Sendable {
    /// The scope FCM sends need.
    public static let messagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The audience Google expects, whatever the token URI (google-auth sends this constant).
    public static let googleAudience = "https://oauth2.googleapis.com/token"
    /// Refresh this long before expiry.
    public static let refreshMargin: TimeInterval = 5 * 60

    typealias Waiter = @Sendable (Result<String, GoogleOAuthError>) -> Void

    private struct State {
        var token: (value: String, expiresAt: Date)?
        var waiters: [Waiter]? = nil
        var exchanges = 0
    }

    private let account: GoogleServiceAccount
    private let clock: any WallClock
    private let http: HTTP2Client
    private let tokenPath: String
    private let audience: String
    private let state = Mutex(State())

    /// Creates a token source for `account`, exchanging at its `token_uri`.
    ///
    /// - Parameters:
    ///   - audience: The JWT `aud`; defaults to Google's token endpoint.
    public init(
        account: GoogleServiceAccount, tls: TLSContext, clock: any WallClock = SystemWallClock(),
        audience: String = GoogleAccessTokens.googleAudience, timeout: Duration = .seconds(10)
    ) throws(ServiceAccountError) {
        guard let origin = HTTPSOrigin(account.tokenURI) else {
            throw ServiceAccountError(field: "token_uri", "\"token_uri\" must be an https URL")
        }
        self.account = account
        self.clock = clock
        self.audience = audience
        tokenPath = origin.path.isEmpty ? "/" : origin.path
        http = HTTP2Client(
            configuration: .init(host: origin.host, port: origin.port, maxConnections: 1, requestTimeout: timeout),
            tls: tls)
    }

    /// Token exchanges made so far (tests check the single flight with it).
    public var exchanges: Int { state.withLock { $0.exchanges } }

    /// Closes the connection to the token endpoint.
    public func shutdown() { http.shutdown() }

    /// Calls `completion` with a valid access token, exchanging a new one when none is cached,
    /// the cached one is within 5 minutes of expiry, or it equals `rejected` (it drew a 401).
    func withToken(rejecting rejected: String? = nil, _ completion: @escaping Waiter) {
        let now = clock.now()
        enum Next {
            case ready(String)
            case wait
            case exchange
        }
        let next: Next = state.withLock { state in
            if let token = state.token, token.value != rejected,
                now < token.expiresAt.addingTimeInterval(-GoogleAccessTokens.refreshMargin)
            {
                return .ready(token.value)
            }
            if state.waiters != nil {
                state.waiters!.append(completion)
                return .wait
            }
            if let rejected, state.token?.value == rejected { state.token = nil }
            state.waiters = [completion]
            state.exchanges += 1
            return .exchange
        }
        switch next {
        case .ready(let token): completion(.success(token))
        case .wait: return
        case .exchange: exchange(now: now)
        }
    }

    /// An access token, waiting for an exchange when needed.
    public func accessToken() async throws(GoogleOAuthError) -> String {
        let result: Result<String, GoogleOAuthError> = await withCheckedContinuation { continuation in
            withToken { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// The signed assertion: header `{alg, typ, kid}`, claims `{iss, scope, aud, iat, exp = iat + 3600}`.
    func assertion(at now: Date) throws -> String {
        let iat = Int64(now.timeIntervalSince1970.rounded(.down))
        let header = JSONValue.object([
            "alg": .string("RS256"), "typ": .string("JWT"), "kid": .string(account.privateKeyID),
        ]).serialized()
        let claims = JSONValue.object([
            "iss": .string(account.clientEmail), "scope": .string(GoogleAccessTokens.messagingScope),
            "aud": .string(audience), "iat": .number(Double(iat)), "exp": .number(Double(iat + 3600)),
        ]).serialized()
        return try JWS.sign(header: Data(header), claims: Data(claims), with: account.privateKey)
    }

    private func exchange(now: Date) {
        let assertion: String
        do {
            assertion = try self.assertion(at: now)
        } catch {
            finish(
                .failure(GoogleOAuthError(code: "signing_failed", detail: "\(error)", status: 0)), expiresIn: 0, at: now
            )
            return
        }
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let request = HTTP2Request(
            method: "POST", path: tokenPath,
            headers: [HTTPHeader("content-type", "application/x-www-form-urlencoded")], body: Array(body.utf8))
        http.execute(request) { [self] response in
            switch response {
            case .failure(let error):
                finish(
                    .failure(GoogleOAuthError(code: "unreachable", detail: error.message, status: 0)), expiresIn: 0,
                    at: now)
            case .success(let answer):
                let json = try? JSONValue.parse(bytes: answer.body)
                if answer.status == 200, let token = json?["access_token"]?.stringValue {
                    let expiresIn =
                        json?["expires_in"]?.numberValue ?? json?["expires_in"]?.stringValue.flatMap(Double.init)
                        ?? 3600
                    finish(.success(token), expiresIn: expiresIn, at: now)
                } else {
                    let code = json?["error"]?.stringValue ?? "http_\(answer.status)"
                    let detail = json?["error_description"]?.stringValue ?? ""
                    finish(
                        .failure(GoogleOAuthError(code: code, detail: detail, status: answer.status)), expiresIn: 0,
                        at: now)
                }
            }
        }
    }

    private func finish(_ result: Result<String, GoogleOAuthError>, expiresIn: Double, at issued: Date) {
        let waiters: [Waiter] = state.withLock { state in
            if case .success(let token) = result {
                state.token = (token, issued.addingTimeInterval(expiresIn))
            }
            let waiters = state.waiters ?? []
            state.waiters = nil
            return waiters
        }
        for waiter in waiters { waiter(result) }
    }
}

/// `https://host[:port]/path`, split for the HTTP/2 client.
struct HTTPSOrigin {
    var host: String
    var port: Int
    var path: String

    init?(_ text: String) {
        guard let url = URL(string: text), url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty
        else {
            return nil
        }
        self.host = host
        port = url.port ?? 443
        var path = url.path
        if path.hasSuffix("/") { path.removeLast() }
        self.path = path
    }
}
