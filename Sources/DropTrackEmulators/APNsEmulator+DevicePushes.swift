// The APNs emulator's `/3/device/<token>` checks, in Apple's order: path, method, headers, provider
// token, topic and push type, priority, expiration, collapse id, the token itself, then the payload.
import DropTrackContract
import DropTrackCore
import DropTrackHTTP2
import DropTrackWire
import Foundation
import Synchronization

extension APNsEmulator {
    /// A push to one device token, checked as APNs checks it; the first failing check answers.
    func devicePush(_ exchange: inout Exchange, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        let request = exchange.request
        let token = APNsEmulator.deviceToken(fromPath: request.path)
        exchange.token = token.isEmpty ? nil : token
        if let faultAction = injectFault(&exchange) { return faultAction }
        guard request.method == "POST" else { return reject(&exchange, .methodNotAllowed) }
        if exchange.headers.duplicate != nil { return reject(&exchange, .duplicateHeaders) }
        if let authFailure = authenticate(&exchange, context: context) { return authFailure }
        if let id = exchange.headers.apnsID {
            guard APNsPush.isCanonicalUUID(id.lowercased()) else { return reject(&exchange, .badMessageId) }
            exchange.apnsID = id.lowercased()
        }
        guard let topic = exchange.headers.topic, !topic.isEmpty else { return reject(&exchange, .missingTopic) }
        let (bundle, hasSuffix) = APNsEmulator.splitTopic(topic)
        exchange.bundleID = bundle
        guard configuration.bundleIDs.contains(bundle) else { return reject(&exchange, .topicDisallowed) }
        let pushType = exchange.headers.pushType
        if hasSuffix {
            guard pushType == "liveactivity" else { return reject(&exchange, .invalidPushType) }
        } else if pushType == "liveactivity" || pushType == nil {
            // The bare bundle id with a Live Activity token: what APNs answers for DT-001.
            return reject(&exchange, .deviceTokenNotForTopic)
        } else {
            return reject(&exchange, .invalidPushType)
        }
        let priorityText = exchange.headers.priority ?? "10"
        guard let priority = Int(priorityText), priority == 5 || priority == 10 else {
            return reject(&exchange, .badPriority)
        }
        exchange.priority = priority
        if let expiration = exchange.headers.expiration {
            guard let value = Int64(expiration), value >= 0 else { return reject(&exchange, .badExpirationDate) }
        }
        if let collapse = exchange.headers.collapseID, collapse.utf8.count > APNsLimits.collapseIDBytes {
            return reject(&exchange, .badCollapseId)
        }
        guard !token.isEmpty else { return reject(&exchange, .missingDeviceToken) }
        guard APNsPush.isHexToken(token) else { return reject(&exchange, .badDeviceToken) }
        let (known, lastTimestamp, ended) = state.withLock { state in
            state.tokens[token].map { ($0.registration, $0.lastTimestamp, $0.ended) } ?? (nil, nil, false)
        }
        if let known {
            if known.environment != configuration.environment { return reject(&exchange, .badDeviceToken) }
            if let dead = known.dead { return reject(&exchange, dead.reason, invalidatedAt: dead.since) }
        } else if configuration.requireRegisteredTokens {
            return reject(&exchange, .badDeviceToken)
        }
        guard !request.body.isEmpty else { return reject(&exchange, .payloadEmpty) }
        guard request.body.count <= APNsLimits.devicePayloadBytes else { return reject(&exchange, .payloadTooLarge) }
        let summary = APSSummary(scanning: request.body)
        exchange.event = summary.event
        exchange.timestamp = summary.timestamp.map { Int64(saturating: $0) }
        exchange.lint = LintInput(
            context: .init(
                now: exchange.now, lastTimestamp: lastTimestamp,
                contract: known?.attributesType.flatMap { configuration.contracts[$0] },
                contracts: configuration.contracts,
                activityEnded: ended))
        return accept(&exchange, token: token, bundleID: bundle)
    }

    /// `<bundle>.push-type.liveactivity` → (`<bundle>`, true); anything else → (itself, false).
    static func splitTopic(_ topic: String) -> (bundle: String, hasSuffix: Bool) {
        var topic = topic
        var suffix = APNsLimits.liveActivityTopicSuffix
        return topic.withUTF8 { bytes in
            suffix.withUTF8 { suffixBytes in
                guard bytes.count > suffixBytes.count,
                    memcmp(
                        bytes.baseAddress! + bytes.count - suffixBytes.count, suffixBytes.baseAddress!,
                        suffixBytes.count) == 0
                else { return (String(decoding: bytes, as: UTF8.self), false) }
                return (
                    String(
                        decoding: UnsafeBufferPointer(rebasing: bytes[..<(bytes.count - suffixBytes.count)]),
                        as: UTF8.self), true
                )
            }
        }
    }

    /// The token after `/3/device/`, lowercased; byte-wise, as this runs on every push.
    static func deviceToken(fromPath path: String) -> String {
        var path = path
        return path.withUTF8 { bytes -> String in
            var start = "/3/device".utf8.count
            while start < bytes.count && bytes[start] == UInt8(ascii: "/") { start += 1 }
            let token = UnsafeBufferPointer(rebasing: bytes[start...])
            if token.contains(where: { (65...90).contains($0) }) {
                return String(decoding: token, as: UTF8.self).lowercased()
            }
            return String(decoding: token, as: UTF8.self)
        }
    }
}
