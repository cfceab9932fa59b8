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
