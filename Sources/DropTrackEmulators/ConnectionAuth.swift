// One APNs connection's provider-token state as a value: the emulator feeds it what each request's
// `authorization` header turned out to be, and it answers accept or APNs' reason, with no socket,
// crypto or lock of its own, so every rule can be tested event by event.
import DropTrackWire
import Foundation

/// What APNs remembers about provider tokens on one connection: the token in force, since when, and
/// whether any request has authenticated yet.
struct ConnectionAuth: Equatable {
    /// What a request's `authorization` header turned out to be.
    enum Event: Equatable {
        /// No `authorization` header.
        case missing
        /// A header that is not `bearer <JWT>`, or a JWT whose signature, `kid`, `alg`, `iss` or `iat` fails.
        case unverifiable
        /// A JWT that verified (or the header that verified last time), issued at `issuedAt` (Unix seconds).
        case verified(header: String, jwt: String, issuedAt: Int64)
    }

    /// What the emulator does with the request.
    enum Decision: Equatable {
        /// The token is good; on the connection's first good token the stream limit rises from one to
        /// the configured limit (`oneStreamUntilValidToken`).
        case accept(firstValidToken: Bool)
        /// APNs' answer: 403 with this reason.
        case reject(APNsReason)
    }

    /// The JWT in force on this connection.
    private(set) var token: String?
    /// When that JWT replaced the one before (or came first).
    private(set) var tokenSince: Date?
    /// Whether any request on this connection has authenticated.
    private(set) var validSeen = false
    /// The last `authorization` value accepted and its `iat`: the common case is the same header on
    /// every request, recognised with one comparison instead of a parse and a signature check.
    private(set) var lastHeader: String?
    private(set) var lastIssuedAt: Int64 = 0

    /// The JWT and `iat` behind `header` when it is the header accepted last, so it needs no verifying.
    func reusable(header: String) -> (jwt: String, issuedAt: Int64)? {
        guard header == lastHeader, let token else { return nil }
        return (token, lastIssuedAt)
    }

    /// Applies APNs' rules to one request at `now`: a token older than an hour is expired, one issued
    /// more than 5 minutes ahead of `now` is invalid, and a new
    /// token within 20 minutes of the last change is one update too many. A refused request leaves
    /// the state as it was.
    mutating func handle(_ event: Event, now: Date) -> Decision {
        switch event {
        case .missing: return .reject(.missingProviderToken)
        case .unverifiable: return .reject(.invalidProviderToken)
        case .verified(let header, let jwt, let issuedAt):
            let age = now.timeIntervalSince1970 - Double(issuedAt)
            if age > APNsLimitsForTokens.maximumAge { return .reject(.expiredProviderToken) }
            // Judged by this side's clock, as APNs judges by its own: a token from a sender whose clock
            // runs ahead is not valid yet.
            if -age > APNsLimitsForTokens.maximumFutureSkew { return .reject(.invalidProviderToken) }
            if token != jwt {
                if let tokenSince, now.timeIntervalSince(tokenSince) < APNsLimitsForTokens.minimumReuse {
                    return .reject(.tooManyProviderTokenUpdates)
                }
                token = jwt
                tokenSince = now
            }
            lastHeader = header
            lastIssuedAt = issuedAt
            let first = !validSeen
            validSeen = true
            return .accept(firstValidToken: first)
        }
    }
}

/// Holds a connection's `ConnectionAuth` in `HTTP2ServerConnectionContext.attachment`, which takes an
/// object; only that connection's thread reads or writes it.
final class ConnectionAuthBox {
    var auth = ConnectionAuth()
}
