import DropTrackContract
import DropTrackStore
import DropTrackWire
import Foundation

/// Builds what a token receives from an activity's newest version, at send time: the APNs
/// payload (start for push-to-start tokens, update or end for update tokens) or the FCM data map.
struct PayloadBuilder {
    let contracts: ContractBook
    let fcmTTLSeconds: Double

    /// The APNs push for a token, or nil when nothing should go to it any more.
    func apnsPush(activity: ActivityRecord, token: TokenRecord, bundleId: String) throws -> APNsPush {
        let state = contracts.output(activity.contentState, type: activity.attributesType)
        let alert = activity.alert.flatMap(Self.alert)
        var payload: LiveActivityPayload<JSONValue>
        var priority = activity.priority
        if token.kind == .pushToStart {
            payload = LiveActivityPayload(
                event: .start, timestamp: activity.timestamp, contentState: state, staleDate: activity.staleDate,
                relevanceScore: activity.relevanceScore,
                alert: alert ?? LiveActivityAlert(title: "Live Activity started", body: ""),
                start: LiveActivityStart(
                    attributesType: activity.attributesType, attributes: activity.attributes,
                    inputPushToken: activity.channelId == nil,
                    inputPushChannel: activity.channelId))
            priority = 10
        } else {
            let event: LiveActivityEvent = activity.event == .end ? .end : .update
            payload = LiveActivityPayload(
                event: event, timestamp: activity.timestamp, contentState: state, staleDate: activity.staleDate,
                dismissalDate: event == .end ? activity.dismissalDate : nil, relevanceScore: activity.relevanceScore,
                alert: activity.event == .start ? nil : alert)
        }
        return APNsPush(
            deviceToken: token.token, bundleID: bundleId, payload: try payload.encoded(), priority: priority,
            tokenEnvironment: token.environment.flatMap { APNsEnvironment(name: $0) })
    }

    /// The FCM message for an Android device.
    func fcmMessage(activity: ActivityRecord, token: TokenRecord) -> FCMMessage {
        FCMMessage(target: .token(token.token), data: dataMap(activity), priority: .high, ttl: fcmTTLSeconds)
    }

    /// The Live Update data map: the DropTrack map for deliveries, otherwise every content-state
    /// field as a string beside the activity id, event, schema version and sequence.
    func dataMap(_ activity: ActivityRecord) -> [String: String] {
        let event = DeliveryLiveUpdate.Event(rawValue: activity.event.rawValue) ?? .update
        if activity.attributesType == DeliveryAttributes.typeName,
            let state = try? LiveActivityJSON.decode(
                DeliveryAttributes.ContentState.self, from: activity.contentState.encoded())
        {
            return DeliveryLiveUpdate.encode(
                .init(
                    activityId: activity.id, event: event,
                    orderId: activity.attributes["orderId"]?.stringValue ?? activity.id,
                    state: state, sequence: activity.timestamp))
        }
        var map: [String: String] = [
            DeliveryLiveUpdate.Key.activityId: activity.id, DeliveryLiveUpdate.Key.event: event.rawValue,
            DeliveryLiveUpdate.Key.schemaVersion: DeliveryLiveUpdate.schemaVersion,
            DeliveryLiveUpdate.Key.sequence: String(activity.timestamp), "attributesType": activity.attributesType,
        ]
        for (key, value) in activity.contentState.objectValue ?? [:] where FCMLimits.reservation(of: key) == nil {
            map[key] = Self.string(value)
        }
        return map
    }

    static func string(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
        case .null: ""
        default: String(decoding: value.serialized(), as: UTF8.self)
        }
    }

    static func alert(_ value: JSONValue) -> LiveActivityAlert? {
        func text(_ value: JSONValue?) -> LiveActivityAlert.Text? {
            guard let value else { return nil }
            if let plain = value.stringValue { return .plain(plain) }
            if let key = value["loc-key"]?.stringValue {
                return .localized(key: key, arguments: value["loc-args"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            }
            return nil
        }
        guard value.objectValue != nil else { return nil }
        return LiveActivityAlert(
            title: text(value["title"]), body: text(value["body"]), sound: value["sound"]?.stringValue)
    }
}
