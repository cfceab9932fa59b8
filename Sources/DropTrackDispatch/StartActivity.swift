import DropTrackContract
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

/// Starts an activity for a user: push-to-start to their iPhones (for the attributes type) and a
/// start to their Android devices, now or at `startAt`. The idempotency key makes a retry safe.
public struct StartActivity: Sendable, Hashable {
    /// The first version from a domain event (DeliveryAttributes, or a type with a declarative mapper).
    public struct InitialEvent: Sendable, Hashable {
        /// The event type, e.g. `delivery.step`.
        public var type: String
        /// The event's fields, as the mapper of `type` reads them.
        public var data: JSONValue

        public init(type: String, data: JSONValue = .object([:])) {
            self.type = type
            self.data = data
        }
    }

    /// A content-state that takes over at a time, sent as an update then.
    public struct ScheduleEntry: Sendable, Hashable {
        /// When, in Unix seconds.
        public var at: Int64
        /// The content-state, checked against the attributes type.
        public var contentState: JSONValue

        public init(at: Int64, contentState: JSONValue) {
            self.at = at
            self.contentState = contentState
        }
    }

    /// Delivery through an iOS 18 broadcast channel, a new one or one the caller has.
    public struct Broadcast: Sendable, Hashable {
        public var storagePolicy: MessageStoragePolicy
        /// A channel APNs already gave the caller; nil creates one (and dismissal deletes it).
        public var channelId: String?
        /// `apns-expiration` for the channel's pushes, Unix seconds or 0.
        public var expiration: Int64?

        public init(
            storagePolicy: MessageStoragePolicy = .mostRecentMessageStored, channelId: String? = nil,
            expiration: Int64? = nil
        ) {
            self.storagePolicy = storagePolicy
            self.channelId = channelId
            self.expiration = expiration
        }
    }

    public var activityId: String
    /// The one user a start is for; empty for an audience start.
    public var userId: String
    /// The users a shared activity starts for, instead of `userId`.
    public var audience: Audience?
    public var attributesType: String
    /// The static attributes, checked against the attributes type.
    public var attributes: JSONValue
    /// The first content-state; give this, `event` or `schedule`.
    public var contentState: JSONValue?
    public var event: InitialEvent?
    /// Content-states by time, in the order given (an entry's errors name its index).
    public var schedule: [ScheduleEntry]?
    /// The push-to-start banner: iOS accepts a push-to-start without one and never shows it.
    public var alert: JSONValue
    /// Unix seconds; the server's default when nil.
    public var staleDate: Int64?
    public var relevanceScore: Double?
    /// Reused on a retry, so the start is sent once.
    public var idempotencyKey: String
    /// Unix seconds: a start for later stays pending until then.
    public var startAt: Int64?
    /// Unix seconds: when the server ends it; the configured maximum when nil.
    public var endAt: Int64?
    public var broadcast: Broadcast?
    /// For an expo-widgets schema: which registered widget the activity shows (needed when the
    /// schema registers several).
    public var widget: String?

    public init(
        activityId: String, userId: String, attributesType: String, attributes: JSONValue,
        contentState: JSONValue? = nil, event: InitialEvent? = nil, schedule: [ScheduleEntry]? = nil,
        alert: JSONValue, staleDate: Int64? = nil, relevanceScore: Double? = nil, idempotencyKey: String,
        startAt: Int64? = nil, endAt: Int64? = nil, broadcast: Broadcast? = nil, widget: String? = nil,
        audience: Audience? = nil
    ) {
        self.audience = audience
        self.activityId = activityId
        self.userId = userId
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.event = event
        self.schedule = schedule
        self.alert = alert
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.idempotencyKey = idempotencyKey
        self.startAt = startAt
        self.endAt = endAt
        self.broadcast = broadcast
        self.widget = widget
    }
}

/// The answer to a start. It is kept with the activity, so a retry with the same idempotency key
/// gets the first answer again. It counts the destinations rather than listing them: a start may
/// fan out to 100k devices, and `describe` lists them.
public struct ActivityStarted: Sendable, Hashable {
    public var activityId: String
    /// `pending` until `startAt`, else `active`.
    public var state: ActivityState
    public var version: Int64
    public var timestamp: Int64
    /// How many destinations the start was queued for.
    public var destinations: Int
    public var destinationsByKind: [TokenKind: Int]
    /// Unix seconds, for a start sent later.
    public var startAt: Int64?
    /// The broadcast channel, for a broadcast activity.
    public var channelId: String?
    /// For an audience start: how many users it resolved to.
    public var members: Int?

    init(_ activity: ActivityRecord, destinations: [TokenRecord], members: Int? = nil) {
        self.members = members
        activityId = activity.id
        state = activity.state
        version = activity.version
        timestamp = activity.timestamp
        self.destinations = destinations.count
        destinationsByKind = Dictionary(grouping: destinations, by: \.kind).mapValues(\.count)
        startAt = activity.startAt.map { Int64(saturating: $0.timeIntervalSince1970.rounded()) }
        channelId = activity.channelId
    }

    /// Reads the copy kept with the activity.
    init(stored: JSONValue) {
        activityId = stored["activityId"]?.stringValue ?? ""
        state = stored["state"]?.stringValue.flatMap(ActivityState.init(rawValue:)) ?? .active
        version = Int64(saturating: stored["version"]?.numberValue ?? 1)
        timestamp = Int64(saturating: stored["timestamp"]?.numberValue ?? 0)
        destinations = Int(saturating: stored["destinations"]?.numberValue ?? 0)
        var byKind: [TokenKind: Int] = [:]
        for (name, count) in stored["destinationsByKind"]?.objectValue ?? [:] {
            if let kind = TokenKind(rawValue: name), let count = count.numberValue {
                byKind[kind] = Int(saturating: count)
            }
        }
        destinationsByKind = byKind
        startAt = stored["startAt"]?.numberValue.map { Int64(saturating: $0) }
        channelId = stored["channelId"]?.stringValue
        members = stored["members"]?.numberValue.map { Int(saturating: $0) }
    }

    /// The copy kept with the activity; the API answers with the same members.
    var stored: JSONValue {
        var byKind: [String: JSONValue] = [:]
        for (kind, count) in destinationsByKind { byKind[kind.rawValue] = .number(Double(count)) }
        var object: [String: JSONValue] = [
            "activityId": .string(activityId), "state": .string(state.rawValue),
            "version": .number(Double(version)), "timestamp": .number(Double(timestamp)),
            "destinations": .number(Double(destinations)),
            "destinationsByKind": .object(byKind),
            "startAt": startAt.map { .number(Double($0)) } ?? .null,
            "channelId": channelId.map { .string($0) } ?? .null,
        ]
        if let members { object["members"] = .number(Double(members)) }
        return .object(object)
    }
}
