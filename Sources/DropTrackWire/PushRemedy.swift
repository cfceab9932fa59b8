/// What to do after an APNs or FCM answer. Call sites act on this and never guess from status
/// codes; both providers' reason tables map onto it, so the dispatcher has one retry policy.
public enum PushRemedy: Hashable, Sendable, CustomStringConvertible {
    /// Delivered to the provider; nothing to do.
    case none
    /// The token is dead: stop sending to it.
    case deleteToken
    /// Mint new credentials (the APNs provider token, the FCM access token) and send again.
    case refreshCredentials
    /// Send again later: after the given delay, or with backoff when nil.
    case retry(after: Duration?)
    /// Open a new connection, then send again.
    case reconnect
    /// The request itself is wrong: fix it (or the configuration) before sending again.
    case rejectRequest

    public var description: String {
        switch self {
        case .none: "none"
        case .deleteToken: "deleteToken"
        case .refreshCredentials: "refreshCredentials"
        case .retry(let after): after.map { "retry(after: \($0))" } ?? "retry(backoff)"
        case .reconnect: "reconnect"
        case .rejectRequest: "rejectRequest"
        }
    }

    /// A short name for metrics labels and the timeline (no associated values).
    public var name: String {
        switch self {
        case .none: "none"
        case .deleteToken: "delete_token"
        case .refreshCredentials: "refresh_credentials"
        case .retry: "retry"
        case .reconnect: "reconnect"
        case .rejectRequest: "reject_request"
        }
    }

    /// The remedy in plain words, for the CLI and the dashboard.
    public var advice: String {
        switch self {
        case .none: "nothing to do"
        case .deleteToken: "stop sending to this token and delete it; the app will register a new one"
        case .refreshCredentials: "make new credentials (APNs provider token, FCM access token) and send again"
        case .retry(let after):
            after.map { "send again after \($0)" } ?? "send again later, backing off exponentially"
        case .reconnect: "open a new connection to APNs and send again"
        case .rejectRequest: "fix the request or the configuration; sending it again unchanged will fail the same way"
        }
    }
}

extension PushRemedy {
    /// APNs' name for `refreshCredentials`: make a new provider token (JWT).
    public static var refreshProviderToken: PushRemedy { .refreshCredentials }
}

extension APNsReason {
    /// The remedy for this reason, given the `Retry-After` delay if the response carried one.
    /// Apple: don't retry BadDeviceToken, DeviceTokenNotForTopic, Forbidden, ExpiredToken,
    /// Unregistered or PayloadTooLarge; TooManyRequests may be retried after a delay; retry 5xx
    /// with backoff.
    public func remedy(retryAfter: Duration? = nil) -> PushRemedy {
        switch self {
        case .badDeviceToken, .expiredToken, .unregistered: .deleteToken
        case .expiredProviderToken: .refreshProviderToken
        // APNs allows one provider token change per connection per 20 minutes: after too many, only
        // another connection takes the token.
        case .unrelatedKeyIdInToken, .idleTimeout, .shutdown, .tooManyProviderTokenUpdates: .reconnect
        case .tooManyRequests, .internalServerError, .serviceUnavailable:
            .retry(after: retryAfter)
        case .unknown:
            status >= 500 ? .retry(after: retryAfter) : .rejectRequest
        default: .rejectRequest
        }
    }
}
