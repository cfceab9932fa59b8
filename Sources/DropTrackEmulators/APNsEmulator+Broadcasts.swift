// The APNs emulator's iOS 18 broadcast pushes and channel management.
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackWire
import Foundation
import Synchronization

extension APNsEmulator {
    func broadcast(_ exchange: inout Exchange, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        let request = exchange.request
        let bundle = String(request.path.dropFirst("/4/broadcasts/apps/".count))
        exchange.bundleID = bundle
        exchange.channelID = exchange.headers.channelID
        if let faultAction = injectFault(&exchange) { return faultAction }
        guard request.method == "POST" else { return reject(&exchange, .methodNotAllowed) }
        if exchange.headers.duplicate != nil { return reject(&exchange, .duplicateHeaders) }
        if let authFailure = authenticate(&exchange, context: context) { return authFailure }
        if bundle.hasSuffix(APNsLimits.liveActivityTopicSuffix) { return reject(&exchange, .topicDisallowed) }
        guard configuration.bundleIDs.contains(bundle) else { return reject(&exchange, .topicMismatch) }
        if let id = exchange.headers.requestID ?? exchange.headers.apnsID {
            guard APNsPush.isCanonicalUUID(id.lowercased()) else { return reject(&exchange, .badMessageId) }
            exchange.apnsID = id.lowercased()
        }
        guard let pushType = exchange.headers.pushType else { return reject(&exchange, .missingPushType) }
        guard pushType.lowercased() == "liveactivity" else { return reject(&exchange, .invalidPushType) }
        guard let channelID = exchange.channelID else { return reject(&exchange, .missingChannelId) }
        guard APNsPush.isBase64ChannelID(channelID) else { return reject(&exchange, .badChannelId) }
        let channel = state.withLock { $0.channels[channelID] }
        guard let channel, !channel.deleted, channel.bundleID == bundle else {
            return reject(&exchange, .channelNotRegistered)
        }
        guard let priority = Int(exchange.headers.priority ?? "10"), [1, 5, 10].contains(priority) else {
            return reject(&exchange, .badPriority)
        }
        exchange.priority = priority
        if let expiration = exchange.headers.expiration {
            guard let value = Int64(expiration), value >= 0 else { return reject(&exchange, .badExpirationDate) }
            if channel.policy == .noMessageStored && value != 0 { return reject(&exchange, .badExpirationDate) }
        }
        guard !request.body.isEmpty else { return reject(&exchange, .payloadEmpty) }
        guard request.body.count <= APNsLimits.broadcastPayloadBytes else { return reject(&exchange, .payloadTooLarge) }
        let summary = APSSummary(scanning: request.body)
        exchange.event = summary.event
        exchange.timestamp = summary.timestamp.map { Int64(saturating: $0) }
        exchange.lint = LintInput(
            context: .init(now: exchange.now, contracts: configuration.contracts, broadcast: true))
        return accept(&exchange, token: nil, bundleID: bundle)
    }

    func channelManagement(_ exchange: inout Exchange, context: HTTP2ServerConnectionContext)
        -> HTTP2ServerAction
    {
        let request = exchange.request
        let rest = request.path.dropFirst("/1/apps/".count).split(separator: "/")
        guard rest.count == 2, rest[1] == "channels" || rest[1] == "all-channels" else {
            return reject(&exchange, .badPath)
        }
        let bundle = String(rest[0])
        exchange.bundleID = bundle
        exchange.channelID = exchange.headers.channelID
        if let authFailure = authenticate(&exchange, context: context) { return authFailure }
        guard configuration.bundleIDs.contains(bundle) else { return reject(&exchange, .topicMismatch) }
        if let id = exchange.headers.requestID {
            guard APNsPush.isCanonicalUUID(id.lowercased()) else { return reject(&exchange, .badMessageId) }
            exchange.apnsID = id.lowercased()
        }
        let requestID = exchange.apnsID ?? ids.next()
        exchange.apnsID = requestID
        if rest[1] == "all-channels" {
            guard request.method == "GET" else { return reject(&exchange, .methodNotAllowed) }
            let ids = state.withLock { state in
                state.channels.filter { !$0.value.deleted && $0.value.bundleID == bundle }.map(\.key).sorted()
            }
            exchange.status = 200
            let body = JSONValue.object(["channels": .array(ids.map { .string($0) })]).encoded()
            return .respond(
                HTTP2ServerResponse(status: 200, headers: [HTTPHeader("apns-request-id", requestID)], body: Array(body))
            )
        }
        switch request.method {
        case "POST":
            guard let body = try? JSONValue.parse(Data(request.body)), let object = body.objectValue else {
                return reject(&exchange, .badRequestPayload)
            }
            guard Set(object.keys).isSubset(of: ["message-storage-policy", "push-type"]),
                let raw = object["message-storage-policy"]?.numberValue,
                let policy = Int(checking: raw).flatMap(MessageStoragePolicy.init(rawValue:)),
                let pushType = object["push-type"]?.stringValue
            else { return reject(&exchange, .badRequestParams) }
            guard pushType.lowercased() == "liveactivity" else { return reject(&exchange, .invalidPushType) }
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
            let id = Data(bytes).base64EncodedString()
            let created: Bool = state.withLock { state in
                let live = state.channels.values.filter { !$0.deleted && $0.bundleID == bundle }.count
                guard live < configuration.channelLimit else { return false }
                state.channels[id] = Channel(bundleID: bundle, policy: policy, deleted: false)
                return true
            }
            guard created else { return reject(&exchange, .cannotCreateChannelConfig) }
            exchange.status = 201
            exchange.channelID = id
            return .respond(
                HTTP2ServerResponse(
                    status: 201, headers: [HTTPHeader("apns-request-id", requestID), HTTPHeader("apns-channel-id", id)])
            )
        case "GET", "DELETE":
            guard let id = exchange.channelID else { return reject(&exchange, .missingChannelId) }
            guard APNsPush.isBase64ChannelID(id) else { return reject(&exchange, .badChannelId) }
            let channel = state.withLock { $0.channels[id] }
            guard let channel, !channel.deleted, channel.bundleID == bundle else {
                return reject(&exchange, .channelNotRegistered)
            }
            if request.method == "DELETE" {
                state.withLock { $0.channels[id]?.deleted = true }
                exchange.status = 204
                return .respond(HTTP2ServerResponse(status: 204, headers: [HTTPHeader("apns-request-id", requestID)]))
            }
            exchange.status = 200
            let body = #"{"message-storage-policy":\#(channel.policy.rawValue),"push-type":"LiveActivity"}"#
            return .respond(
                HTTP2ServerResponse(
                    status: 200, headers: [HTTPHeader("apns-request-id", requestID)], body: Array(body.utf8)))
        default:
            return reject(&exchange, .methodNotAllowed)
        }
    }
}
