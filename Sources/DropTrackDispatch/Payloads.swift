import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

/// Builds what a token receives from an activity's newest version, at send time: the APNs
/// payload (start for push-to-start tokens, update or end for update tokens) or the FCM data map.
struct PayloadBuilder {
    let contracts: ContractBook
    let fcmTTLSeconds: Double

    /// The APNs push for a token: the payload (see `apnsPayload`) addressed to it.
    func apnsPush(activity: ActivityRecord, token: TokenRecord, bundleId: String) throws -> APNsPush {
        let (payload, priority) = try apnsPayload(activity: activity, start: token.kind == .pushToStart)
        return apnsPush(payload: payload, priority: priority, token: token, bundleId: bundleId)
    }

    /// A built payload addressed to a token.
    func apnsPush(payload: [UInt8], priority: Int, token: TokenRecord, bundleId: String) -> APNsPush {
        apnsPush(
            payload: payload, priority: priority, token: token.token, environment: token.environment, bundleId: bundleId
        )
    }

    /// A built payload addressed to a token of a fan-out range.
    func apnsPush(
        payload: [UInt8], priority: Int, token: DeviceToken, environment: APNsEnvironment?, bundleId: String
    ) -> APNsPush {
        APNsPush(
            deviceToken: token, bundleID: bundleId, payload: payload, priority: priority,
            tokenEnvironment: environment)
    }

    /// The APNs payload and priority of an activity's newest version: a start (for push-to-start
    /// tokens) or its update or end. It is the same for every token, so a fan-out builds it once.
    func apnsPayload(activity: ActivityRecord, start: Bool) throws -> (payload: [UInt8], priority: Int) {
        let state = contracts.output(
            activity.contentState, type: activity.attributesType,
            widget: activity.mapperState?[ActivityRegistry.expoWidgetKey]?.stringValue)
        let alert = activity.alert.flatMap(Self.alert)
        if start {
            let payload = LiveActivityPayload(
                event: .start, timestamp: activity.timestamp, contentState: state, staleDate: activity.staleDate,
                relevanceScore: activity.relevanceScore,
                alert: alert ?? LiveActivityAlert(title: "Live Activity started", body: ""),
                start: LiveActivityStart(
                    attributesType: contracts.activityKitType(activity.attributesType), attributes: activity.attributes,
                    inputPushToken: activity.channelId == nil,
                    inputPushChannel: activity.channelId))
            return (try payload.encoded(), 10)
        }
        let event: LiveActivityEvent = activity.event == .end ? .end : .update
        let payload = LiveActivityPayload(
            event: event, timestamp: activity.timestamp, contentState: state, staleDate: activity.staleDate,
            dismissalDate: event == .end ? activity.dismissalDate : nil, relevanceScore: activity.relevanceScore,
            alert: activity.event == .start ? nil : alert)
        return (try payload.encoded(), activity.priority)
    }

    /// The FCM message for an Android device.
    func fcmMessage(activity: ActivityRecord, token: TokenRecord) -> FCMMessage {
        fcmMessage(data: dataMap(activity), token: token)
    }

    /// A built data map addressed to a device.
    func fcmMessage(data: [String: String], token: TokenRecord) -> FCMMessage {
        FCMMessage(target: .token(token.token), data: data, priority: .high, ttl: fcmTTLSeconds)
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
