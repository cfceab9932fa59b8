import DropTrackContract
import DropTrackCore
import DropTrackModel
import Foundation

/// A stored token. The raw token is kept to send to; everywhere else it is named by `fingerprint`.
public struct TokenRecord: Sendable, Equatable {
    /// The app (tenant) it belongs to.
    public var app: String
    /// Push-to-start, activity or FCM.
    public var kind: TokenKind
    /// The token itself (hex for APNs): printed as its fingerprint, sent as `wireValue`.
    public var token: DeviceToken
    /// `Fingerprint(of: token)`: the token's name in the API, logs and timeline.
    public var fingerprint: Fingerprint
    /// The user, for push-to-start and FCM tokens.
    public var userId: String?
    /// The device.
    public var deviceId: String
    /// For push-to-start tokens: the `ActivityAttributes` type.
    public var attributesType: String?
    /// For activity tokens: the activity.
    public var activityId: String?
    /// For APNs tokens: sandbox or production.
    public var environment: APNsEnvironment?
    /// First registered.
    public var createdAt: Date
    /// Last registered again (or used successfully).
    public var lastSeenAt: Date
    /// Set when the token must not be used again.
    public var invalidatedAt: Date?
    /// Why it must not be used again.
    public var invalidReason: InvalidationReason?
    /// What the app last reported about the device (OS version, Live Activities or Live Updates
    /// switches, …), as the JSON object it sent; the doctor reads it. Parsed when read.
    public var device: JSONValue? {
        get { deviceText.flatMap { try? JSONValue.parse($0) } }
        set { deviceText = newValue.map { String(decoding: $0.serialized(), as: UTF8.self) } }
    }
    /// The same facts as stored, JSON text with sorted keys: a fan-out reads every token of an
    /// activity and needs none of them, so they stay text until someone asks.
    public var deviceText: String?

    /// Creates a record.
    public init(
        app: String, kind: TokenKind, token: DeviceToken, fingerprint: Fingerprint, userId: String?, deviceId: String,
        attributesType: String?, activityId: String?, environment: APNsEnvironment?, createdAt: Date, lastSeenAt: Date,
        invalidatedAt: Date? = nil, invalidReason: InvalidationReason? = nil, device: JSONValue? = nil
    ) {
        self.app = app
        self.kind = kind
        self.token = token
        self.fingerprint = fingerprint
        self.userId = userId
        self.deviceId = deviceId
        self.attributesType = attributesType
        self.activityId = activityId
        self.environment = environment
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.invalidatedAt = invalidatedAt
        self.invalidReason = invalidReason
        self.deviceText = device.map { String(decoding: $0.serialized(), as: UTF8.self) }
    }

    /// True while the token may be sent to.
    public var isValid: Bool { invalidatedAt == nil }
}

/// One activity and its latest state. Every change makes a new `version` with a `timestamp` that
/// only goes up; sends read the newest version when they go out.
public struct ActivityRecord: Sendable, Equatable {
    public var app: String
    /// The caller's id, unique per app.
    public var id: String
    public var userId: String
    public var attributesType: String
    /// The static attributes, in ActivityKit's JSON form.
    public var attributes: JSONValue
    /// The latest content-state, in ActivityKit's JSON form.
    public var contentState: JSONValue
    public var state: ActivityState
    /// Bumped on every change.
    public var version: Int64
    /// The APNs `timestamp` (and FCM `sequence`) of this version: Unix seconds, strictly increasing.
    public var timestamp: Int64
    /// The event this version sends.
    public var event: LiveActivityEvent
    /// 10 or 5 for this version.
    public var priority: Int
    /// True when the priority-10 budget turned this version down to 5.
    public var priorityDowngraded: Bool
    /// The alert this version carries, if any.
    public var alert: JSONValue?
    public var staleDate: Int64?
    public var dismissalDate: Int64?
    public var relevanceScore: Double?
    /// The start's idempotency key.
    public var idempotencyKey: String?
    /// The answer given to the start, replayed for the same key.
    public var startResponse: JSONValue?
    /// Unix seconds of the priority-10 versions in the last hour (the budget).
    public var priority10Times: [Int64]
    public var createdAt: Date
    public var updatedAt: Date
    /// When a scheduled start goes out.
    public var startAt: Date?
    /// When the activity is ended automatically.
    public var endAt: Date?
    /// When an ended activity counts as dismissed.
    public var dismissAt: Date?
    /// For schedule-type activities: timed entries `[{"at": unix, "contentState": {...}}]`.
    public var schedule: JSONValue?
    /// A broadcast channel id (iOS 18) when the activity uses one.
    public var channelId: String?
    /// The channel's message-storage policy (0 no storage, 1 most recent stored).
    public var channelPolicy: Int?
    /// Free-form settings the mapper keeps between events (the delivery step, the courier).
    public var mapperState: JSONValue?

    /// Creates a record.
    public init(
        app: String, id: String, userId: String, attributesType: String, attributes: JSONValue, contentState: JSONValue,
        state: ActivityState, version: Int64, timestamp: Int64, event: LiveActivityEvent, priority: Int,
        priorityDowngraded: Bool = false, alert: JSONValue? = nil, staleDate: Int64? = nil,
        dismissalDate: Int64? = nil, relevanceScore: Double? = nil, idempotencyKey: String? = nil,
        startResponse: JSONValue? = nil, priority10Times: [Int64] = [], createdAt: Date, updatedAt: Date,
        startAt: Date? = nil, endAt: Date? = nil, dismissAt: Date? = nil, schedule: JSONValue? = nil,
        channelId: String? = nil, channelPolicy: Int? = nil, mapperState: JSONValue? = nil
    ) {
        self.app = app
        self.id = id
        self.userId = userId
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.state = state
        self.version = version
        self.timestamp = timestamp
        self.event = event
        self.priority = priority
        self.priorityDowngraded = priorityDowngraded
        self.alert = alert
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.idempotencyKey = idempotencyKey
        self.startResponse = startResponse
        self.priority10Times = priority10Times
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.startAt = startAt
        self.endAt = endAt
        self.dismissAt = dismissAt
        self.schedule = schedule
        self.channelId = channelId
        self.channelPolicy = channelPolicy
        self.mapperState = mapperState
    }
}

/// Where an outbox row sends: one device token, or an iOS 18 broadcast channel, which reaches every
/// device subscribed to it with one request.
public enum OutboxDestination: Sendable, Hashable, CustomStringConvertible {
    /// A device token, by its fingerprint.
    case token(fingerprint: Fingerprint)
    /// An activity's broadcast channel, by the id APNs gave it.
    case channel(id: String)

    /// The prefix that marks a channel in the stored form. Fingerprints are hex, so none starts with it.
    static let channelPrefix = "channel:"

    /// The stored form (the outbox's `token_fingerprint` column) and the timeline's `destination`:
    /// the fingerprint, or `channel:<id>`. Rows written before this type existed have the same form.
    public var stored: String {
        switch self {
        case .token(let fingerprint): fingerprint.value
        case .channel(let id): Self.channelPrefix + id
        }
    }

    /// Reads the stored form; nil when it names no token or channel (`channel:` alone, or text that is
    /// not a fingerprint).
    public init?(stored: String) { try? self.init(reading: stored) }

    /// Reads the stored form, saying why it names nothing.
    init(reading stored: String) throws(InvalidFingerprint) {
        if stored.hasPrefix(Self.channelPrefix) {
            let id = String(stored.dropFirst(Self.channelPrefix.count))
            // A channel id is no fingerprint either way; an empty one names nothing, like bad hex.
            guard !id.isEmpty else { throw InvalidFingerprint(.length(stored.utf8.count)) }
            self = .channel(id: id)
        } else {
            self = .token(fingerprint: try Fingerprint(validating: stored))
        }
    }

    /// The token's fingerprint, or nil for a channel.
    public var tokenFingerprint: Fingerprint? {
        if case .token(let fingerprint) = self { fingerprint } else { nil }
    }

    public var description: String { stored }
}

/// "Activity X needs sending to token T": the outbox row. It says what to send to, never what
/// to send; the sender reads the newest version when it sends.
public struct OutboxEntry: Sendable, Equatable {
    /// Store-assigned id.
    public var id: Int64
    public var app: String
    public var activityId: String
    /// The token or broadcast channel it sends to.
    public var destination: OutboxDestination
    /// The newest version that must reach this token.
    public var requestedVersion: Int64
    /// Not before this time (backoff, scheduled starts).
    public var availableAt: Date
    /// When the first request for this row was queued (for the fan-out lag and the max age).
    public var firstQueuedAt: Date
    /// Attempts so far.
    public var attempts: Int
    /// The worker holding it, and until when.
    public var claimedBy: String?
    public var claimedUntil: Date?
    /// The last failure, in words.
    public var lastError: String?
    /// True when this claim took the row over from a lease that ran out with no outcome written:
    /// the worker died, and the send may or may not have reached the provider.
    public var inDoubt: Bool

    public init(
        id: Int64 = 0, app: String, activityId: String, destination: OutboxDestination, requestedVersion: Int64,
        availableAt: Date, firstQueuedAt: Date, attempts: Int = 0, claimedBy: String? = nil, claimedUntil: Date? = nil,
        lastError: String? = nil, inDoubt: Bool = false
    ) {
        self.id = id
        self.app = app
        self.activityId = activityId
        self.destination = destination
        self.requestedVersion = requestedVersion
        self.availableAt = availableAt
        self.firstQueuedAt = firstQueuedAt
        self.attempts = attempts
        self.claimedBy = claimedBy
        self.claimedUntil = claimedUntil
        self.lastError = lastError
        self.inDoubt = inDoubt
    }
}
