import DropTrackContract
import DropTrackStore
import DropTrackWire

/// A token an app registers for one of its devices: a push-to-start token, an activity's update
/// token, an FCM registration token, or a subscription to an activity's broadcast channel (which
/// has no token of its own).
public struct RegisterToken: Sendable, Hashable {
    /// Which of the four it is.
    public var kind: TokenKind
    /// The token as the device got it: ActivityKit's hex, or an FCM registration token; empty for a
    /// channel subscription.
    public var token: String
    /// The user a push-to-start or FCM token starts activities for.
    public var userId: String?
    /// The device, so a new token can supersede its older ones.
    public var deviceId: String
    /// The activity an update token or a channel subscription belongs to.
    public var activityId: String?
    /// The attributes type a push-to-start token starts.
    public var attributesType: String?
    /// The APNs environment an ActivityKit token belongs to (a sandbox token is refused in production).
    public var environment: APNsEnvironment?
    /// What the device reports about itself (`osVersion`, `areActivitiesEnabled`, …), under the
    /// names of the doctor's context document.
    public var device: JSONValue?

    public init(
        kind: TokenKind, token: String = "", userId: String? = nil, deviceId: String, activityId: String? = nil,
        attributesType: String? = nil, environment: APNsEnvironment? = nil, device: JSONValue? = nil
    ) {
        self.kind = kind
        self.token = token
        self.userId = userId
        self.deviceId = deviceId
        self.activityId = activityId
        self.attributesType = attributesType
        self.environment = environment
        self.device = device
    }
}
