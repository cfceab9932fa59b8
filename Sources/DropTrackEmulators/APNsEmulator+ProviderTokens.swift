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
    /// Checks `authorization` as APNs does; nil when the token is good. The rules are
    /// `ConnectionAuth`'s; this finds out what the header is (reused, verified or not) and acts on the decision.
    func authenticate(_ exchange: inout Exchange, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction? {
        let box: ConnectionAuthBox
        if let attached = context.attachment as? ConnectionAuthBox {
            box = attached
        } else {
            box = ConnectionAuthBox()
            context.attachment = box
        }
        let event = authorizationEvent(exchange.headers.authorization, auth: box.auth)
        switch box.auth.handle(event, now: exchange.now) {
        case .reject(let reason):
            return reject(&exchange, reason)
        case .accept(let firstValidToken):
            if firstValidToken {
                let (limit, oneFirst) = state.withLock { ($0.maxConcurrentStreams, $0.oneStreamUntilValidToken) }
                if oneFirst || context.maxConcurrentStreams != limit { context.updateMaxConcurrentStreams(limit) }
            }
            return nil
        }
    }

    /// What the `authorization` header is: missing, the header accepted last time, a JWT that
    /// verifies (cached across connections by its text), or neither.
    private func authorizationEvent(_ header: String?, auth: ConnectionAuth) -> ConnectionAuth.Event {
        guard let header else { return .missing }
        if let reused = auth.reusable(header: header) {
            return .verified(header: header, jwt: reused.jwt, issuedAt: reused.issuedAt)
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .unverifiable }
        let jwt = String(parts[1])
        if let cached = state.withLock({ $0.verified[jwt] }) {
            return .verified(header: header, jwt: jwt, issuedAt: cached)
        }
        guard let issuedAt = verify(jwt) else { return .unverifiable }
        state.withLock { state in
            if state.verified.count > 4096 { state.verified.removeAll() }
            state.verified[jwt] = issuedAt
        }
        return .verified(header: header, jwt: jwt, issuedAt: issuedAt)
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
        guard let iat, let issuedAt = Int64(checking: iat) else { return nil }
        if configuration.strictSignatures && parts.signature.count != 64 { return nil }
        guard parts.verify(with: key) else { return nil }
        return issuedAt
    }
}

/// Provider-token timing APNs enforces.
enum APNsLimitsForTokens {
    /// `iat` older than this gets ExpiredProviderToken.
    static let maximumAge: TimeInterval = 3600
    /// An `iat` further ahead of the emulator's clock than this gets InvalidProviderToken.
    static let maximumFutureSkew: TimeInterval = 300
    /// A new token sooner than this on one connection gets TooManyProviderTokenUpdates.
    static let minimumReuse: TimeInterval = 20 * 60
}
