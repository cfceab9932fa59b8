import DropTrackContract
import DropTrackModel
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
    public var userId: UserID?
    /// The device, so a new token can supersede its older ones.
    public var deviceId: DeviceID
    /// The activity an update token or a channel subscription belongs to.
    public var activityId: ActivityID?
    /// The attributes type a push-to-start token starts.
    public var attributesType: String?
    /// The APNs environment an ActivityKit token belongs to (a sandbox token is refused in production).
    public var environment: APNsEnvironment?
    /// What the device reports about itself (`osVersion`, `areActivitiesEnabled`, …), under the
    /// names of the doctor's context document.
    public var device: JSONValue?

    public init(
        kind: TokenKind, token: String = "", userId: UserID? = nil, deviceId: DeviceID, activityId: ActivityID? = nil,
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

/// A domain event for an activity's mapper (`delivery.step`, `delivery.reassign`, `delivery.eta`, or
/// one a schema's declarative mapper declares): the mapper turns it into the next content-state. The
/// data stays JSON because each event type carries its own fields.
public struct ApplyEvent: Sendable, Hashable {
    /// What a terminal step (`delivered`) does to the activity.
    public enum Terminal: String, Sendable, Hashable {
        /// Ends the activity with the final content-state (the default).
        case end
        /// Sends the final content-state as an update and leaves the activity open.
        case update
    }

    /// The event type, e.g. `delivery.step`.
    public var type: String
    /// The event's fields, as the mapper of `type` reads them.
    public var data: JSONValue
    /// What a terminal step does.
    public var terminal: Terminal

    public init(type: String, data: JSONValue = .object([:]), terminal: Terminal = .end) {
        self.type = type
        self.data = data
        self.terminal = terminal
    }
}

/// A direct update: the next content-state, with what iOS does with it.
public struct UpdateActivity: Sendable, Hashable {
    /// The content-state, checked against the activity's attributes type.
    public var contentState: JSONValue
    /// A banner to show with the update (`title`, `body`, `sound`).
    public var alert: JSONValue?
    /// When iOS marks the content out of date (Unix seconds); the server's default when nil.
    public var staleDate: Int64?
    /// Which of an app's activities iOS shows first.
    public var relevanceScore: Double?
    /// 5 or 10; nil lets the server choose (10 with an alert).
    public var priority: Int?

    public init(
        contentState: JSONValue, alert: JSONValue? = nil, staleDate: Int64? = nil, relevanceScore: Double? = nil,
        priority: Int? = nil
    ) {
        self.contentState = contentState
        self.alert = alert
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.priority = priority
    }
}

/// How an ended activity leaves the Lock Screen.
public enum DismissalPolicy: Sendable, Hashable {
    /// iOS's own policy: up to four hours after the end.
    case `default`
    /// At once.
    case immediate
    /// At a Unix time in seconds (capped at four hours from now, as iOS caps it).
    case at(Int64)
}

/// Ends an activity, optionally with a final content-state.
public struct EndActivity: Sendable, Hashable {
    /// The final content-state; the current one when nil.
    public var contentState: JSONValue?
    /// How the activity leaves the Lock Screen.
    public var dismissal: DismissalPolicy
    /// A banner to show with the end.
    public var alert: JSONValue?

    public init(contentState: JSONValue? = nil, dismissal: DismissalPolicy = .default, alert: JSONValue? = nil) {
        self.contentState = contentState
        self.dismissal = dismissal
        self.alert = alert
    }
}

/// The version an event, update or end made: what was queued, to how many destinations, and any
/// notes on what the server changed (a priority downgraded by the budget).
public struct ActivityVersion: Sendable, Hashable {
    public var activityId: String
    public var state: ActivityState
    public var version: Int64
    /// The `timestamp` the version carries (iOS drops a push older than the one it shows).
    public var timestamp: Int64
    public var event: LiveActivityEvent
    public var priority: Int
    /// How many destinations the version was queued for.
    public var destinations: Int
    public var notes: [String]
    public var contentState: JSONValue

    init(_ activity: ActivityRecord, destinations: Int, notes: [String]) {
        activityId = activity.id
        state = activity.state
        version = activity.version
        timestamp = activity.timestamp
        event = activity.event
        priority = activity.priority
        self.destinations = destinations
        self.notes = notes
        contentState = activity.contentState
    }
}

/// What the server knows of an activity: its record (state, latest content-state, version), the
/// devices it reaches (by fingerprint), the sends still queued and the newest of its timeline.
public struct ActivitySnapshot: Sendable, Equatable {
    public var activity: ActivityRecord
    /// Its update tokens and channel subscriptions, and its user's push-to-start (for its
    /// attributes type) and FCM tokens, valid or not.
    public var devices: [TokenRecord]
    /// Sends queued and not yet done.
    public var pendingSends: Int
    /// The newest entries of its timeline, up to the limit asked.
    public var timeline: [TimelineEntry]
    /// For a shared activity: how far its start has got.
    public var progress: AudienceProgress? = nil
    /// For a shared activity seen by the backend: whose devices `devices` lists.
    public var devicesPage: MemberPage? = nil
}

/// A page of a shared activity's members (sorted by user id), whose devices a backend's view lists:
/// an audience of 100,000 is not read whole for one `GET`.
public struct MemberPage: Sendable, Equatable {
    /// The page starts after this user id (from the first when nil).
    public var after: String?
    /// Members in a page at most.
    public var limit: Int
    /// The members listed, and the user id to ask `after` for the next page (nil on the last).
    public var listed = 0
    public var next: String? = nil

    /// The most a page may list.
    public static let maximum = 5000

    public init(after: String? = nil, limit: Int = 500) {
        self.after = after
        self.limit = limit
    }
}
