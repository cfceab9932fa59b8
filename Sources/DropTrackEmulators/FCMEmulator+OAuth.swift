// The FCM emulator's OAuth2 token endpoint: RS256 assertions checked against the service account's key.
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackWire
import Foundation
import Synchronization

extension FCMEmulator {
    func tokenEndpoint(_ request: HTTP2ServerRequest) -> HTTP2ServerResponse {
        let now = clock.now()
        let answer = exchange(request, now: now)
        let status: Int
        let error: String?
        let message: String?
        switch answer {
        case .success:
            (status, error, message) = (200, nil, nil)
        case .failure(let failure):
            (status, error, message) = (failure.status, failure.code, failure.detail)
        }
        record(
            FCMEmulatorRecord(
                sequence: 0, receivedAt: now, kind: "token", status: status, error: error, message: message,
                validateOnly: false))
        switch answer {
        case .success(let token):
            return jsonResponse(
                200,
                .object([
                    "access_token": .string(token), "expires_in": .number(Double(configuration.accessTokenLifetime)),
                    "token_type": .string("Bearer"),
                ]))
        case .failure(let failure):
            return jsonResponse(
                failure.status, .object(["error": .string(failure.code), "error_description": .string(failure.detail)]))
        }
    }

    private func exchange(_ request: HTTP2ServerRequest, now: Date) -> Result<String, GoogleTokenError> {
        guard request.method == "POST" else { return .failure(GoogleTokenError(405, "invalid_request", "Use POST")) }
        let form = FCMEmulator.parseForm(String(decoding: request.body, as: UTF8.self))
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return .failure(
                GoogleTokenError(400, "unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")"))
        }
        guard let assertion = form["assertion"], let parts = JWS.parse(assertion),
            let header = try? JSONValue.parse(parts.header), let claims = try? JSONValue.parse(parts.claims)
        else {
            return .failure(GoogleTokenError(400, "invalid_request", "Invalid JWT: the assertion is not a compact JWS"))
        }
        guard header["alg"]?.stringValue == "RS256" else {
            return .failure(GoogleTokenError(400, "invalid_grant", "Invalid JWT: alg must be RS256"))
        }
        guard parts.verify(with: configuration.serviceAccountKey) else {
            return .failure(GoogleTokenError(400, "invalid_grant", "Invalid JWT Signature."))
        }
        if let email = configuration.clientEmail, claims["iss"]?.stringValue != email {
            return .failure(
                GoogleTokenError(400, "invalid_grant", "Invalid JWT: iss is not the service account's client_email"))
        }
        let audiences = [GoogleTokenError.googleAudience] + configuration.extraAudiences
        guard let audience = claims["aud"]?.stringValue, audiences.contains(audience) else {
            return .failure(
                GoogleTokenError(400, "invalid_grant", "Invalid JWT: aud must be \(GoogleTokenError.googleAudience)"))
        }
        let scopes = (claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init)
        guard
            scopes.contains("https://www.googleapis.com/auth/firebase.messaging")
                || scopes.contains("https://www.googleapis.com/auth/cloud-platform")
        else {
            return .failure(
                GoogleTokenError(
                    400, "invalid_scope", "The scope does not allow sending FCM messages (firebase.messaging)"))
        }
        guard let iat = claims["iat"]?.numberValue, let exp = claims["exp"]?.numberValue else {
            return .failure(GoogleTokenError(400, "invalid_grant", "Invalid JWT: iat and exp are required"))
        }
        let nowSeconds = now.timeIntervalSince1970
        guard exp > iat, exp - iat <= 3600, exp > nowSeconds, iat <= nowSeconds + 300 else {
            return .failure(
                GoogleTokenError(
                    400, "invalid_grant",
                    "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
                ))
        }
        let token = "ya29.emulator-" + ids.next()
        state.withLock { state in
            state.tokenExchanges += 1
            let expiry = now.addingTimeInterval(TimeInterval(configuration.accessTokenLifetime))
            if state.accessTokens.count > 10_000 { state.accessTokens = state.accessTokens.filter { $0.value > now } }
            state.accessTokens[token] = expiry
        }
        return .success(token)
    }

    static func parseForm(_ body: String) -> [String: String] {
        var form: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let decode = { (text: Substring) in
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            form[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return form
    }
}

/// A token-endpoint refusal, shaped like Google's `{error, error_description}`.
struct GoogleTokenError: Error {
    static let googleAudience = "https://oauth2.googleapis.com/token"
    var status: Int
    var code: String
    var detail: String

    init(_ status: Int, _ code: String, _ detail: String) {
        self.status = status
        self.code = code
        self.detail = detail
    }
}
