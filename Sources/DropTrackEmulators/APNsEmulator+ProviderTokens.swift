// The APNs emulator's provider-token checks: the `authorization` header, the JWT's signature and claims,
// its age and how often a connection may change it.
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackWire
import Foundation
import Synchronization

extension APNsEmulator {
    /// Checks `authorization` as APNs does; nil when the token is good.
    func authenticate(_ exchange: inout Exchange, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction? {
        guard let header = exchange.headers.authorization else { return reject(&exchange, .missingProviderToken) }
        let auth = context.attachment as? ConnectionAuth ?? ConnectionAuth()
        let jwt: String
        let issuedAt: Int64
        if header == auth.lastHeader, let token = auth.token {
            jwt = token
            issuedAt = auth.lastIssuedAt
        } else {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                return reject(&exchange, .invalidProviderToken)
            }
            jwt = String(parts[1])
            if let cached = state.withLock({ $0.verified[jwt] }) {
                issuedAt = cached
            } else {
                guard let verifiedIat = verify(jwt) else { return reject(&exchange, .invalidProviderToken) }
                issuedAt = verifiedIat
                state.withLock { state in
                    if state.verified.count > 4096 { state.verified.removeAll() }
                    state.verified[jwt] = verifiedIat
                }
            }
        }
        let age = exchange.now.timeIntervalSince1970 - Double(issuedAt)
        if age > APNsLimitsForTokens.maximumAge { return reject(&exchange, .expiredProviderToken) }
        if auth.token != jwt {
            if let since = auth.tokenSince, exchange.now.timeIntervalSince(since) < APNsLimitsForTokens.minimumReuse {
                return reject(&exchange, .tooManyProviderTokenUpdates)
            }
            auth.token = jwt
            auth.tokenSince = exchange.now
        }
        auth.lastHeader = header
        auth.lastIssuedAt = issuedAt
        if !auth.validSeen {
            auth.validSeen = true
            let (limit, oneFirst) = state.withLock { ($0.maxConcurrentStreams, $0.oneStreamUntilValidToken) }
            if oneFirst || context.maxConcurrentStreams != limit { context.updateMaxConcurrentStreams(limit) }
        }
        return nil
    }

    /// Verifies signature, `kid`, `alg` and `iss`; returns `iat`.
    private func verify(_ jwt: String) -> Int64? {
        guard let parts = JWS.parse(jwt),
            let header = try? JSONValue.parse(parts.header), let claims = try? JSONValue.parse(parts.claims),
            header["alg"]?.stringValue == "ES256", let kid = header["kid"]?.stringValue,
            let key = configuration.keys[kid],
            claims["iss"]?.stringValue == configuration.teamID
        else { return nil }
        // APNSwift and kalyke send iat as a numeric string, and APNs accepts it.
        let iat = claims["iat"]?.numberValue ?? claims["iat"]?.stringValue.flatMap(Double.init)
        guard let iat else { return nil }
        if configuration.strictSignatures && parts.signature.count != 64 { return nil }
        guard parts.verify(with: key) else { return nil }
        return Int64(iat)
    }
}

/// Provider-token timing APNs enforces.
enum APNsLimitsForTokens {
    /// `iat` older than this gets ExpiredProviderToken.
    static let maximumAge: TimeInterval = 3600
    /// A new token sooner than this on one connection gets TooManyProviderTokenUpdates.
    static let minimumReuse: TimeInterval = 20 * 60
}
