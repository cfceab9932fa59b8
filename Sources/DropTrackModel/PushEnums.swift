// The push enums, defined once: the store keeps them as their raw values, the wire sends them, the
// domain and the API read them.

/// Which APNs environment a token belongs to. Tokens are tied to one: a sandbox token sent to
/// production (or the reverse) gets `BadDeviceToken`.
public enum APNsEnvironment: String, Sendable, Codable, CaseIterable, Hashable {
    case sandbox
    case production

    /// Parses `sandbox` (also `development`) or `production`.
    public init?(name: String) {
        switch name.lowercased() {
        case "sandbox", "development", "dev": self = .sandbox
        case "production", "prod": self = .production
        default: return nil
        }
    }
}

/// The `event` of a Live Activity push.
public enum LiveActivityEvent: String, Sendable, Codable, CaseIterable {
    case start, update, end
}

/// The three kinds of token DropTrack stores.
public enum TokenKind: String, Sendable, Codable, CaseIterable {
    /// iOS push-to-start: per user, device and `ActivityAttributes` type.
    case pushToStart = "push_to_start"
    /// iOS update token of one activity instance on one device.
    case activity
    /// Android FCM registration token: per device.
    case fcm
    /// Not a token: a record that an iOS 18 device subscribed to a broadcast activity's channel,
    /// which reaches it with one broadcast per event. The device's update tokens for that activity
    /// are then superseded, so it is not sent the same version twice.
    case channelSubscription = "channel_subscription"
}

/// The lifecycle of an activity: pending → active → stale → ended → dismissed.
public enum ActivityState: String, Sendable, Codable, CaseIterable {
    case pending, active, stale, ended, dismissed
}
