import DropTrackContract
import DropTrackDispatch
import DropTrackModel
import DropTrackStore
import DropTrackWire

// The request bodies of the JSON API read into the domain's commands. These checks are the shape
// the OpenAPI document publishes (unknown fields, types, ids, lengths; 400s); what depends on the
// app, its contracts or the clock is the domain's to check.

extension RegisterToken {
    /// Reads the body of `POST /v1/tokens/{kind}`; `tokens import` reads its lines with it too.
    public init(kind: TokenKind, json body: JSONValue) throws(Refusal) {
        let reader = try FieldReader(body)
        var userId: UserID? = nil
        var attributesType: String? = nil
        var activityId: ActivityID? = nil
        switch kind {
        case .pushToStart:
            try reader.refuseUnknown(["userId", "deviceId", "token", "environment", "attributesType", "device"])
            userId = try reader.id("userId")
            attributesType = try reader.string("attributesType")
        case .activity:
            try reader.refuseUnknown(["activityId", "attributes", "deviceId", "token", "environment", "device"])
            activityId = try Self.activityId(reader)
        case .fcm:
            try reader.refuseUnknown(["userId", "deviceId", "token", "device"])
            userId = try reader.id("userId")
        case .channelSubscription:
            try reader.refuseUnknown(["activityId", "deviceId", "device"])
            activityId = try reader.id("activityId")
            self.init(
                kind: kind, deviceId: try reader.id("deviceId"), activityId: activityId,
                device: reader.object["device"])
            return
        }
        let deviceId: DeviceID = try reader.id("deviceId")
        let token = try reader.string("token", maxLength: 4096) ?? ""
        var environment: APNsEnvironment? = nil
        if kind != .fcm {
            let name = try reader.string("environment") ?? ""
            guard let parsed = APNsEnvironment(rawValue: name) else {
                throw .invalid("environment", "'environment' must be \"sandbox\" or \"production\", not '\(name)'")
            }
            environment = parsed
        }
        self.init(
            kind: kind, token: token, userId: userId, deviceId: deviceId, activityId: activityId,
            attributesType: attributesType, environment: environment, device: reader.object["device"])
    }
}

extension RegisterToken {
    /// The activity an update token belongs to: `activityId`, or `attributes.activityId` as an app
    /// built with a patched expo-widgets reads it from `LiveActivityAttributes` (the activity was
    /// started by push, so the app learns the server's id only from its attributes). Both may be
    /// sent when they agree.
    static func activityId(_ reader: FieldReader) throws(Refusal) -> ActivityID {
        if reader.object["attributes"] == .null {
            throw .invalid(
                "attributes",
                "'attributes' must be an object holding 'activityId'; or leave it out and send 'activityId'")
        }
        guard let attributes = try reader.object("attributes") else { return try reader.id("activityId") }
        let inner = try FieldReader(attributes, prefix: "attributes")
        try inner.refuseUnknown(ExpoWidgetsAttributes.attributeKeys.union([ExpoWidgetsAttributes.activityIdKey]))
        let carried: ActivityID = try inner.id(ExpoWidgetsAttributes.activityIdKey)
        _ = try inner.string("url", required: false, maxLength: Int.max)
        if reader.object["activityId"] != nil {
            // Both fit the published schema, so their disagreement is a 422, not a 400.
            let named: ActivityID = try reader.id("activityId")
            guard named == carried else {
                throw .unprocessable(
                    message:
                        "'attributes.activityId' ('\(carried)') and 'activityId' ('\(named)') name different activities; send the one the activity's attributes carry",
                    field: "attributes.activityId")
            }
        }
        return carried
    }
}

extension ApplyEvent {
    /// Reads the body of `POST /v1/activities/{id}/events`: `{type, data?, terminal?}`.
    public init(json body: JSONValue) throws(Refusal) {
        let reader = try FieldReader(body)
        try reader.refuseUnknown(["type", "data", "terminal"])
        let type = try reader.string("type", what: "the event type, e.g. delivery.step") ?? ""
        let data = try reader.object("data") ?? .object([:])
        let name = try reader.string("terminal", required: false) ?? "end"
        guard let terminal = Terminal(rawValue: name) else {
            throw .invalid("terminal", "'terminal' is \"end\" (default) or \"update\"")
        }
        self.init(type: type, data: data, terminal: terminal)
    }
}

extension UpdateActivity {
    /// Reads the body of `PATCH /v1/activities/{id}`: `{contentState, alert?, staleDate?, relevanceScore?, priority?}`.
    public init(json body: JSONValue) throws(Refusal) {
        let reader = try FieldReader(body)
        try reader.refuseUnknown(["contentState", "alert", "staleDate", "relevanceScore", "priority"])
        let priority = try reader.integer("priority").map(Int.init)
        let alert = try reader.object("alert")
        self.init(
            contentState: try reader.object("contentState", required: true) ?? .null, alert: alert,
            staleDate: try reader.unixSeconds("staleDate"), relevanceScore: try reader.number("relevanceScore"),
            priority: priority)
    }
}

extension EndActivity {
    /// Reads the body of `POST /v1/activities/{id}/end`: `{contentState?, dismissal?, alert?}`.
    public init(json body: JSONValue) throws(Refusal) {
        let reader = try FieldReader(body)
        try reader.refuseUnknown(["contentState", "dismissal", "alert"])
        let dismissal: DismissalPolicy
        let expected = Refusal.invalid(
            "dismissal", "'dismissal' is \"default\", \"immediate\" or a Unix time in seconds (10 or 11 digits)")
        switch reader.object["dismissal"] {
        case nil, .null, .string("default"): dismissal = .default
        case .string("immediate"): dismissal = .immediate
        case .number(let value):
            guard value == value.rounded(), let unix = Int64(checking: value, within: 1_000_000_001...99_999_999_999)
            else { throw expected }
            dismissal = .at(unix)
        default: throw expected
        }
        let alert = try reader.object("alert")
        self.init(contentState: try reader.object("contentState"), dismissal: dismissal, alert: alert)
    }
}

extension FieldReader {
    /// A Unix-seconds field, refusing milliseconds and reference-date seconds (DT-018).
    func unixSeconds(_ key: String) throws(Refusal) -> Int64? {
        guard let value = try integer(key) else { return nil }
        guard value > 1_000_000_000, value < 100_000_000_000 else {
            throw .invalid(key, "'\(key)' must be Unix seconds (10 digits), not \(value)")
        }
        return value
    }
}

extension StartActivity {
    /// Reads the body of `POST /v1/activities`.
    public init(json body: JSONValue) throws(Refusal) {
        let reader = try FieldReader(body)
        try reader.refuseUnknown([
            "activityId", "userId", "attributesType", "attributes", "contentState", "event", "alert", "staleDate",
            "relevanceScore", "idempotencyKey", "startAt", "endAt", "schedule", "broadcast", "widget", "audience",
        ])
        let key =
            try reader.string("idempotencyKey", what: "a key you reuse when you retry, so the start is sent once") ?? ""
        let activityId = try reader.identifier("activityId")
        let audience = try Self.audience(reader)
        let userId = try Self.userIdOrAudience(reader, audience: audience)
        let type = try reader.string("attributesType") ?? ""
        let attributes = try reader.object("attributes", required: true) ?? .object([:])
        let contentState = try reader.object("contentState")
        let eventValue = try reader.object("event")
        if contentState != nil && eventValue != nil {
            throw .invalid("event", "give either 'contentState' or 'event', not both")
        }
        var event: InitialEvent? = nil
        if let eventValue {
            let eventReader = try FieldReader(eventValue, prefix: "event")
            try eventReader.refuseUnknown(["type", "data"])
            event = InitialEvent(
                type: try eventReader.string("type") ?? "", data: try eventReader.object("data") ?? .object([:]))
        }
        let schedule = try Self.schedule(reader)
        guard contentState != nil || event != nil || schedule != nil else {
            throw .missing(
                "contentState", "the initial content-state (or an 'event' for DeliveryAttributes, or a 'schedule')")
        }
        guard let alert = try reader.object("alert") else {
            throw .missing(
                "alert", "{\"title\": …, \"body\": …}; iOS accepts a push-to-start without an alert and never shows it")
        }
        self.init(
            activityId: activityId, userId: userId, attributesType: type, attributes: attributes,
            contentState: contentState, event: event, schedule: schedule, alert: alert,
            staleDate: try reader.unixSeconds("staleDate"), relevanceScore: try reader.number("relevanceScore"),
            idempotencyKey: key, startAt: try reader.unixSeconds("startAt"), endAt: try reader.unixSeconds("endAt"),
            broadcast: try Self.broadcast(reader), widget: try reader.string("widget", required: false),
            audience: audience)
    }

    /// `userId`, or empty when an `audience` is given instead: exactly one of the two.
    static func userIdOrAudience(_ reader: FieldReader, audience: Audience?) throws(Refusal) -> String {
        let hasUser = reader.object["userId"].map { $0 != .null } ?? false
        switch (hasUser, audience) {
        case (true, .some):
            throw .invalid(
                "audience",
                "give either 'userId' (one user) or 'audience' (a shared activity for many users), not both")
        case (false, nil):
            throw .missing(
                "userId", "the user to start for; or give 'audience' instead of 'userId' to start for many users")
        case (false, .some): return ""
        case (true, nil): return try reader.identifier("userId")
        }
    }

    /// `audience`: `"everyone"`, `{"userIds": [...]}` or `{"tags": {"all": [...], "any": [...]}}`.
    static func audience(_ reader: FieldReader) throws(Refusal) -> Audience? {
        guard let value = reader.object["audience"], value != .null else { return nil }
        let shapes = "\"everyone\", {\"userIds\": [...]} or {\"tags\": {\"all\": [...], \"any\": [...]}}"
        if let text = value.stringValue {
            guard text == "everyone" else {
                throw .invalid("audience", "'audience' is \(shapes), not '\(text.prefix(40))'")
            }
            return .everyone
        }
        let options = try FieldReader(value, prefix: "audience")
        try options.refuseUnknown(["userIds", "tags"])
        switch (options.object["userIds"], options.object["tags"]) {
        case (let ids?, nil):
            guard let items = ids.arrayValue, !items.isEmpty else {
                throw .invalid("audience.userIds", "'audience.userIds' is a list of one or more user ids")
            }
            var users: [String] = []
            users.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                guard let id = item.stringValue else {
                    throw .invalid("audience.userIds[\(index)]", "'audience.userIds[\(index)]' must be a string")
                }
                try Identifier.check(id, field: "audience.userIds[\(index)]")
                users.append(id)
            }
            return .users(users)
        case (nil, let tags?):
            let match = try FieldReader(tags, prefix: "audience.tags")
            try match.refuseUnknown(["all", "any"])
            let all = try Self.tagList(match, "all")
            let any = try Self.tagList(match, "any")
            guard !all.isEmpty || !any.isEmpty else {
                throw .missing("audience.tags.all", "tags every member carries ('all'), or of which one ('any')")
            }
            return .tags(all: all, any: any)
        default:
            throw .invalid("audience", "'audience' is \(shapes): give exactly one of 'userIds' and 'tags'")
        }
    }

    static func tagList(_ reader: FieldReader, _ key: String) throws(Refusal) -> [String] {
        guard let value = reader.object[key], value != .null else { return [] }
        return try Tags(value, field: reader.path(key)).tags
    }
}

/// A JSON list of tags, checked by `Tag.check` (sorted, duplicates dropped).
struct Tags {
    var tags: [String]

    init(_ value: JSONValue, field: String) throws(Refusal) {
        guard let items = value.arrayValue else {
            throw .invalid(field, "'\(field)' must be a list of tags, e.g. [\"gold\", \"city:paris\"]")
        }
        var texts: [String] = []
        for (index, item) in items.enumerated() {
            guard let text = item.stringValue else {
                throw .invalid("\(field)[\(index)]", "'\(field)[\(index)]' must be a string; a tag is \(Tag.rule)")
            }
            texts.append(text)
        }
        tags = try Tag.check(texts, field: field)
    }

    /// Reads the body of `PUT /v1/users/{userId}/tags` and `PUT /v1/devices/{deviceId}/tags`: `{"tags": [...]}`.
    init(body: JSONValue) throws(Refusal) {
        let reader = try FieldReader(body)
        try reader.refuseUnknown(["tags"])
        guard let value = reader.object["tags"], value != .null else {
            throw .missing("tags", "the list of tags, e.g. [\"gold\"]; [] clears them")
        }
        self = try Tags(value, field: "tags")
    }
}

extension StartActivity {

    /// `schedule: [{at, contentState}]`, in the order given.
    static func schedule(_ reader: FieldReader) throws(Refusal) -> [ScheduleEntry]? {
        guard let value = reader.object["schedule"], value != .null else { return nil }
        guard let entries = value.arrayValue, !entries.isEmpty, entries.count <= 1000 else {
            throw .invalid(
                "schedule", "'schedule' must be a list of 1 to 1000 {\"at\": unix, \"contentState\": {…}} entries")
        }
        var read: [ScheduleEntry] = []
        for (index, entry) in entries.enumerated() {
            let entryReader = try FieldReader(entry, prefix: "schedule[\(index)]")
            try entryReader.refuseUnknown(["at", "contentState"])
            guard let at = try entryReader.integer("at"), at > 1_000_000_000, at < 100_000_000_000 else {
                throw .invalid("schedule[\(index)].at", "'schedule[\(index)].at' must be Unix seconds")
            }
            read.append(
                ScheduleEntry(at: at, contentState: try entryReader.object("contentState", required: true) ?? .null))
        }
        return read
    }

    /// `broadcast: {storagePolicy?, channelId?, expiration?}`.
    static func broadcast(_ reader: FieldReader) throws(Refusal) -> Broadcast? {
        guard let value = try reader.object("broadcast") else { return nil }
        let options = try FieldReader(value, prefix: "broadcast")
        try options.refuseUnknown(["storagePolicy", "channelId", "expiration"])
        let name = try options.string("storagePolicy", required: false) ?? "most-recent"
        guard let policy = MessageStoragePolicy(name: name) else {
            throw .invalid("broadcast.storagePolicy", "'broadcast.storagePolicy' is \"most-recent\" or \"no-storage\"")
        }
        let expiration = try options.integer("expiration")
        if let expiration, expiration < 0 || expiration >= 100_000_000_000 {
            throw .invalid("broadcast.expiration", "'broadcast.expiration' is Unix seconds, or 0")
        }
        let channelId = try options.string("channelId", required: false, maxLength: 256)
        if let channelId, !APNsPush.isBase64ChannelID(channelId) {
            throw .invalid("broadcast.channelId", "'broadcast.channelId' must be the base64 id APNs gave the channel")
        }
        return Broadcast(storagePolicy: policy, channelId: channelId, expiration: expiration)
    }
}

extension ReportLifecycle {
    /// Reads the body of `POST /v1/activities/{id}/lifecycle`: `{deviceId, state, reason?}`.
    public init(json body: JSONValue) throws(Refusal) {
        let reader = try FieldReader(body)
        try reader.refuseUnknown(["deviceId", "state", "reason"])
        let deviceId = try reader.identifier("deviceId")
        let name = try reader.string("state", what: "active, stale, ended, dismissed or lost") ?? ""
        guard let state = DeviceLifecycleState(rawValue: name) else {
            throw .invalid("state", "'state' must be active, stale, ended, dismissed or lost, not '\(name.prefix(40))'")
        }
        self.init(deviceId: deviceId, state: state, reason: try reader.string("reason", required: false))
    }
}

extension PressAction {
    /// Reads the body of `POST /v1/activities/{id}/actions`: `{deviceId, action}`.
    public init(json body: JSONValue) throws(Refusal) {
        let reader = try FieldReader(body)
        try reader.refuseUnknown(["deviceId", "action"])
        let deviceId = try reader.identifier("deviceId")
        let action =
            try reader.string("action", what: "the name of the button pressed, e.g. confirm_receipt", maxLength: 64)
            ?? ""
        self.init(deviceId: deviceId, action: action)
    }
}

/// The body of `POST /v1/device-credentials`: `{userId, ttlSeconds?}`.
struct MintDeviceCredential {
    var userId: String
    var ttlSeconds: Int

    init(json body: JSONValue) throws(Refusal) {
        let reader = try FieldReader(body)
        try reader.refuseUnknown(["userId", "ttlSeconds"])
        userId = try reader.identifier("userId")
        let ttl = try reader.integer("ttlSeconds") ?? 3600
        guard ttl >= 1, ttl <= deviceCredentialMaximumSeconds else {
            throw .invalid("ttlSeconds", "'ttlSeconds' must be from 1 to 604800 (7 days), not \(ttl)")
        }
        ttlSeconds = Int(ttl)
    }
}
