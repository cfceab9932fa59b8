import DropTrackContract
import DropTrackDispatch
import DropTrackStore
import DropTrackWire

// The request bodies of the JSON API read into the domain's commands. These checks are the shape
// the OpenAPI document publishes (unknown fields, types, ids, lengths; 400s); what depends on the
// app, its contracts or the clock is the domain's to check.

extension RegisterToken {
    /// Reads the body of `POST /v1/tokens/{kind}`; `tokens import` reads its lines with it too.
    public init(kind: TokenKind, json body: JSONValue) throws(ActivityError) {
        let reader = try FieldReader(body)
        var userId: String? = nil
        var attributesType: String? = nil
        var activityId: String? = nil
        switch kind {
        case .pushToStart:
            try reader.refuseUnknown(["userId", "deviceId", "token", "environment", "attributesType", "device"])
            userId = try reader.identifier("userId")
            attributesType = try reader.string("attributesType")
        case .activity:
            try reader.refuseUnknown(["activityId", "deviceId", "token", "environment", "device"])
            activityId = try reader.identifier("activityId")
        case .fcm:
            try reader.refuseUnknown(["userId", "deviceId", "token", "device"])
            userId = try reader.identifier("userId")
        case .channelSubscription:
            try reader.refuseUnknown(["activityId", "deviceId", "device"])
            activityId = try reader.identifier("activityId")
            self.init(
                kind: kind, deviceId: try reader.identifier("deviceId"), activityId: activityId,
                device: reader.object["device"])
            return
        }
        let deviceId = try reader.identifier("deviceId")
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

extension ApplyEvent {
    /// Reads the body of `POST /v1/activities/{id}/events`: `{type, data?, terminal?}`.
    public init(json body: JSONValue) throws(ActivityError) {
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
    public init(json body: JSONValue) throws(ActivityError) {
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
    public init(json body: JSONValue) throws(ActivityError) {
        let reader = try FieldReader(body)
        try reader.refuseUnknown(["contentState", "dismissal", "alert"])
        let dismissal: DismissalPolicy
        switch reader.object["dismissal"] {
        case nil, .null, .string("default"): dismissal = .default
        case .string("immediate"): dismissal = .immediate
        case .number(let value) where value > 1_000_000_000 && value < 100_000_000_000 && value == value.rounded():
            dismissal = .at(Int64(value))
        default:
            throw .invalid("dismissal", "'dismissal' is \"default\", \"immediate\" or a Unix time in seconds")
        }
        let alert = try reader.object("alert")
        self.init(contentState: try reader.object("contentState"), dismissal: dismissal, alert: alert)
    }
}

extension FieldReader {
    /// A Unix-seconds field, refusing milliseconds and reference-date seconds (DT-018).
    func unixSeconds(_ key: String) throws(ActivityError) -> Int64? {
        guard let value = try integer(key) else { return nil }
        guard value > 1_000_000_000, value < 100_000_000_000 else {
            throw .invalid(key, "'\(key)' must be Unix seconds (10 digits), not \(value)")
        }
        return value
    }
}
