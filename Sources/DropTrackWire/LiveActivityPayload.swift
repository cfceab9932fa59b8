import DropTrackContract
import DropTrackModel
import Foundation

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

/// A Live Activity alert. `title` and `body` are plain strings or localization objects
/// (`{"loc-key": …, "loc-args": […]}`); ActivityKit requires an alert on `start`.
public struct LiveActivityAlert: Sendable, Hashable, Encodable {
    /// A plain string, or a key into the app's Localizable strings with arguments.
    public enum Text: Sendable, Hashable, Encodable {
        case plain(String)
        case localized(key: String, arguments: [String])

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .plain(let text):
                var container = encoder.singleValueContainer()
                try container.encode(text)
            case .localized(let key, let arguments):
                var container = encoder.container(keyedBy: DynamicKey.self)
                try container.encode(key, forKey: DynamicKey("loc-key"))
                if !arguments.isEmpty { try container.encode(arguments, forKey: DynamicKey("loc-args")) }
            }
        }
    }

    /// The alert title.
    public var title: Text?
    /// The alert body.
    public var body: Text?
    /// A sound file name, or "default".
    public var sound: String?

    /// Creates an alert.
    public init(title: Text? = nil, body: Text? = nil, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }

    /// An alert with plain-string title and body.
    public init(title: String, body: String, sound: String? = nil) {
        self.init(title: .plain(title), body: .plain(body), sound: sound)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DynamicKey.self)
        try container.encodeIfPresent(title, forKey: DynamicKey("title"))
        try container.encodeIfPresent(body, forKey: DynamicKey("body"))
        try container.encodeIfPresent(sound, forKey: DynamicKey("sound"))
    }
}

/// What only a push-to-start carries.
public struct LiveActivityStart: Sendable, Hashable {
    /// The `ActivityAttributes` type's Swift name, e.g. `DeliveryAttributes`.
    public var attributesType: String
    /// The static attributes, already in ActivityKit's JSON form.
    public var attributes: JSONValue
    /// iOS 18: ask the system for an update token for the new activity (`input-push-token: 1`).
    public var inputPushToken: Bool
    /// iOS 18: subscribe the new activity to this broadcast channel (base64 id).
    public var inputPushChannel: String?

    /// Creates the start fields from JSON attributes.
    public init(
        attributesType: String, attributes: JSONValue, inputPushToken: Bool = true, inputPushChannel: String? = nil
    ) {
        self.attributesType = attributesType
        self.attributes = attributes
        self.inputPushToken = inputPushToken && inputPushChannel == nil
        self.inputPushChannel = inputPushChannel
    }

    /// Creates the start fields from any `ActivityAttributes`, encoded as ActivityKit decodes them.
    public init<Attributes: ActivityAttributes>(
        attributes: Attributes, attributesType: String? = nil, inputPushToken: Bool = true,
        inputPushChannel: String? = nil
    ) throws {
        let data = try LiveActivityJSON.encode(attributes)
        self.init(
            attributesType: attributesType ?? String(describing: Attributes.self),
            attributes: try JSONValue.parse(data), inputPushToken: inputPushToken, inputPushChannel: inputPushChannel)
    }
}

/// The `aps` body of a Live Activity push, generic over any content-state type.
///
/// `timestamp`, `stale-date` and `dismissal-date` are Unix seconds; dates *inside*
/// `content-state` are encoded with ActivityKit's default (seconds since 2001-01-01).
public struct LiveActivityPayload<ContentState: Encodable & Sendable>: Sendable, Encodable {
    /// start, update or end.
    public var event: LiveActivityEvent
    /// Unix seconds; the device ignores an update older than the last one it applied.
    public var timestamp: Int64
    /// The state the widget decodes.
    public var contentState: ContentState
    /// Unix seconds after which the activity shows as stale.
    public var staleDate: Int64?
    /// `end` only: Unix seconds when the ended activity leaves the Lock Screen (past = now).
    public var dismissalDate: Int64?
    /// Which activity gets the Dynamic Island when several run.
    public var relevanceScore: Double?
    /// Shown as a banner (required on start).
    public var alert: LiveActivityAlert?
    /// Present exactly on start.
    public var start: LiveActivityStart?

    /// Creates a payload.
    public init(
        event: LiveActivityEvent, timestamp: Int64, contentState: ContentState, staleDate: Int64? = nil,
        dismissalDate: Int64? = nil, relevanceScore: Double? = nil, alert: LiveActivityAlert? = nil,
        start: LiveActivityStart? = nil
    ) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.alert = alert
        self.start = start
    }

    private struct APS: Encodable {
        let payload: LiveActivityPayload

        func encode(to encoder: any Encoder) throws {
            var aps = encoder.container(keyedBy: DynamicKey.self)
            try aps.encode(payload.event.rawValue, forKey: DynamicKey("event"))
            try aps.encode(payload.timestamp, forKey: DynamicKey("timestamp"))
            try aps.encode(payload.contentState, forKey: DynamicKey("content-state"))
            try aps.encodeIfPresent(payload.staleDate, forKey: DynamicKey("stale-date"))
            try aps.encodeIfPresent(payload.dismissalDate, forKey: DynamicKey("dismissal-date"))
            try aps.encodeIfPresent(payload.relevanceScore, forKey: DynamicKey("relevance-score"))
            try aps.encodeIfPresent(payload.alert, forKey: DynamicKey("alert"))
            if let start = payload.start {
                try aps.encode(start.attributesType, forKey: DynamicKey("attributes-type"))
                try aps.encode(start.attributes, forKey: DynamicKey("attributes"))
                if start.inputPushToken { try aps.encode(1, forKey: DynamicKey("input-push-token")) }
                try aps.encodeIfPresent(start.inputPushChannel, forKey: DynamicKey("input-push-channel"))
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var root = encoder.container(keyedBy: DynamicKey.self)
        try root.encode(APS(payload: self), forKey: DynamicKey("aps"))
    }

    /// The JSON bytes APNs receives, keys sorted so the bytes are stable.
    public func encoded() throws -> [UInt8] { Array(try LiveActivityJSON.encode(self)) }
}

/// A coding key made from any string (APNs keys have dashes).
struct DynamicKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
