import DropTrackContract
import DropTrackModel
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

@Suite("APNs payloads against the golden vectors")
struct PayloadTests {
    let at = Date(timeIntervalSince1970: referenceUnix)
    let unix = Int64(referenceUnix)

    @Test("start: alert, attributes-type, attributes, input-push-token and content-state")
    func start() throws {
        let state = DeliveryStep.placed.contentState(courierName: "Sam", riderReassigned: false, at: at)
        let payload = LiveActivityPayload(
            event: .start, timestamp: unix, contentState: state, staleDate: unix + 3600,
            alert: LiveActivityAlert(title: "Order A-1042 placed", body: "Sam is on it. Arriving in about 45 minutes."),
            start: try LiveActivityStart(attributes: DeliveryAttributes(orderId: "A-1042")))
        #expect(try payload.encoded() == Array(try vector("apns/start.json")))
    }

    @Test("update and end")
    func updateAndEnd() throws {
        let onTheWay = DeliveryStep.onTheWay.contentState(courierName: "Sam", riderReassigned: false, at: at)
        let update = LiveActivityPayload(
            event: .update, timestamp: unix + 100, contentState: onTheWay, staleDate: unix + 3600)
        #expect(try update.encoded() == Array(try vector("apns/update.json")))

        let reassigned = DeliveryStep.onTheWay.contentState(courierName: "Priya", riderReassigned: true, at: at)
        let alerting = LiveActivityPayload(
            event: .update, timestamp: unix + 200, contentState: reassigned, relevanceScore: 100,
            alert: LiveActivityAlert(title: "New courier", body: "Priya is now delivering your order."))
        #expect(try alerting.encoded() == Array(try vector("apns/update.reassigned.json")))

        let delivered = DeliveryStep.delivered.contentState(courierName: "Priya", riderReassigned: true, at: at)
        let end = LiveActivityPayload(
            event: .end, timestamp: unix + 300, contentState: delivered, dismissalDate: unix + 14400)
        #expect(try end.encoded() == Array(try vector("apns/end.json")))
    }

    @Test("localized alert text and an iOS 18 channel start")
    func localizedAndChannel() throws {
        let payload = LiveActivityPayload(
            event: .start, timestamp: 1, contentState: ["a": 1],
            alert: LiveActivityAlert(
                title: .localized(key: "%@ is on the way", arguments: ["Sam"]), body: .plain("b"), sound: "default"),
            start: LiveActivityStart(
                attributesType: "T", attributes: .object([:]), inputPushChannel: "AAAAAAAAAAAAAAAAAAAAAA=="))
        let json = String(decoding: try payload.encoded(), as: UTF8.self)
        #expect(json.contains(#""title":{"loc-args":["Sam"],"loc-key":"%@ is on the way"}"#))
        #expect(json.contains(#""input-push-channel":"AAAAAAAAAAAAAAAAAAAAAA==""#))
        #expect(!json.contains("input-push-token"))
        #expect(json.contains(#""sound":"default""#))
    }

    @Test("the client is generic: any Codable content-state works")
    func generic() throws {
        struct Score: Codable, Hashable, Sendable { var home: Int; var away: Int; var kickoff: Date }
        let payload = LiveActivityPayload(
            event: .update, timestamp: 5,
            contentState: Score(home: 2, away: 1, kickoff: Date(timeIntervalSinceReferenceDate: 10)))
        #expect(
            String(decoding: try payload.encoded(), as: UTF8.self)
                == #"{"aps":{"content-state":{"away":1,"home":2,"kickoff":10},"event":"update","timestamp":5}}"#)
    }
}

@Suite("APNs requests are checked before sending")
struct PushValidationTests {
    @Test("a payload over 4096 bytes is refused with its size")
    func oversize() {
        let push = APNsPush(deviceToken: "abcd", bundleID: "com.example", payload: Array(repeating: 0x20, count: 4097))
        #expect {
            try push.validate()
        } throws: { error in
            let error = error as? APNsRequestError
            return error?.code == .payloadTooLarge && error?.message.contains("4097 bytes") == true
                && error?.field == "payload"
        }
    }

    @Test("broadcasts may be 5120 bytes, not more")
    func broadcastSize() throws {
        let id = Data(repeating: 7, count: 16).base64EncodedString()
        try APNsPush(channelID: id, bundleID: "com.example", payload: Array(repeating: 0x20, count: 5120)).validate()
        #expect(throws: APNsRequestError(.payloadTooLarge, field: "", "")) {
            try APNsPush(channelID: id, bundleID: "com.example", payload: Array(repeating: 0x20, count: 5121))
                .validate()
        }
        #expect(throws: APNsRequestError(.badChannelID, field: "", "")) {
            try APNsPush(channelID: "not base64!", bundleID: "com.example", payload: [1]).validate()
        }
    }

    @Test("tokens of any even hex length pass; odd, empty or non-hex ones do not")
    func tokens() throws {
        try APNsPush(deviceToken: String(repeating: "ab", count: 80), bundleID: "b", payload: [1]).validate()
        for bad in ["", "abc", "zz", "0x12"] {
            #expect(throws: APNsRequestError(.badDeviceToken, field: "", "")) {
                try APNsPush(deviceToken: bad, bundleID: "b", payload: [1]).validate()
            }
        }
    }

    @Test("every byte value: exactly 0-9, a-f and A-F make a hex token")
    func hexDigits() {
        let hex = Set("0123456789abcdefABCDEF".utf8)
        for byte in UInt8.min...UInt8.max {
            let token = String(decoding: [byte, byte], as: UTF8.self)
            #expect(APNsPush.isHexToken(token) == hex.contains(byte), "byte \(byte)")
        }
    }

    @Test("the Live Activity topic suffix is compared byte for byte")
    func topicSuffix() {
        var push = APNsPush(deviceToken: "ab", bundleID: "com.example", payload: [1])
        #expect(push.hasLiveActivityTopic)
        for topic in ["com.example", "push-type.liveactivity", "com.example.push-type.liveactivitY", ""] {
            push.topic = topic
            #expect(!push.hasLiveActivityTopic, "\(topic)")
        }
        push.topic = ".push-type.liveactivity"
        #expect(push.hasLiveActivityTopic)
    }

    @Test("topic suffix, priority, collapse id and apns-id")
    func headers() {
        var push = APNsPush(deviceToken: "ab", bundleID: "com.example", payload: [1])
        #expect(push.topic == "com.example.push-type.liveactivity")
        push.topic = "com.example"
        #expect(throws: APNsRequestError(.badTopic, field: "", "")) { try push.validate() }
        #expect(throws: APNsRequestError(.badPriority, field: "", "")) {
            try APNsPush(deviceToken: "ab", bundleID: "b", payload: [1], priority: 1).validate()
        }
        #expect(throws: APNsRequestError(.badCollapseID, field: "", "")) {
            try APNsPush(deviceToken: "ab", bundleID: "b", payload: [1], collapseID: String(repeating: "x", count: 65))
                .validate()
        }
        #expect(throws: APNsRequestError(.badMessageID, field: "", "")) {
            try APNsPush(deviceToken: "ab", bundleID: "b", payload: [1], apnsID: "123E4567-E89B-12D3-A456-426614174000")
                .validate()
        }
    }
}

@Suite("Every problem at once, for the doctor")
struct ValidationListTests {
    @Test("validationErrors lists every APNs problem in order, and validate throws the first")
    func apnsList() {
        var push = APNsPush(
            deviceToken: "xyz", bundleID: "com.example", payload: Array(repeating: 0x20, count: 4097), priority: 7,
            expiration: -1, apnsID: "NOT-A-UUID", collapseID: String(repeating: "c", count: 65))
        push.topic = "com.example"
        #expect(
            push.validationErrors().map(\.code) == [
                .badDeviceToken, .badTopic, .payloadTooLarge, .badPriority, .badCollapseID, .badMessageID,
                .badExpiration,
            ])
        #expect(throws: APNsRequestError(.badDeviceToken, field: "", "")) { try push.validate() }
        #expect(APNsPush(deviceToken: "abcd", bundleID: "b", payload: [1]).validationErrors().isEmpty)
    }

    @Test("validationErrors lists every FCM problem: reserved keys, size and ttl")
    func fcmList() {
        let big = String(repeating: "v", count: 4100)
        let message = FCMMessage(target: .token("t"), data: ["from": "x", "google.a": "y", "big": big], ttl: -1)
        #expect(
            message.validationErrors().map(\.field) == [
                "message.data.from", "message.data.google.a", "message.data", "message.android.ttl",
            ])
        #expect {
            try message.validate()
        } throws: { error in
            (error as? FCMRequestError)?.field == "message.data.from"
        }
    }
}

@Suite("APNs reasons and remedies")
struct ReasonTests {
    static let expectedRemedies: [String: PushRemedy] = [
        "BadCollapseId": .rejectRequest, "BadDeviceToken": .deleteToken, "BadExpirationDate": .rejectRequest,
        "BadMessageId": .rejectRequest, "BadPriority": .rejectRequest, "BadTopic": .rejectRequest,
        "DeviceTokenNotForTopic": .rejectRequest, "DuplicateHeaders": .rejectRequest, "IdleTimeout": .reconnect,
        "InvalidPushType": .rejectRequest, "MissingDeviceToken": .rejectRequest, "MissingTopic": .rejectRequest,
        "PayloadEmpty": .rejectRequest, "TopicDisallowed": .rejectRequest, "BadCertificate": .rejectRequest,
        "BadCertificateEnvironment": .rejectRequest, "ExpiredProviderToken": .refreshProviderToken,
        "Forbidden": .rejectRequest, "InvalidProviderToken": .rejectRequest, "MissingProviderToken": .rejectRequest,
        "UnrelatedKeyIdInToken": .reconnect, "BadEnvironmentKeyIdInToken": .rejectRequest, "BadPath": .rejectRequest,
        "MethodNotAllowed": .rejectRequest, "ExpiredToken": .deleteToken, "Unregistered": .deleteToken,
        "PayloadTooLarge": .rejectRequest, "TooManyProviderTokenUpdates": .reconnect,
        "TooManyRequests": .retry(after: nil), "InternalServerError": .retry(after: nil),
        "ServiceUnavailable": .retry(after: nil), "Shutdown": .reconnect, "FeatureNotEnabled": .rejectRequest,
        "MissingChannelId": .rejectRequest, "BadChannelId": .rejectRequest, "ChannelNotRegistered": .rejectRequest,
        "BadRequestParams": .rejectRequest, "BadRequestPayload": .rejectRequest, "MissingPushType": .rejectRequest,
        "CannotCreateChannelConfig": .rejectRequest, "TopicMismatch": .rejectRequest,
    ]

    @Test("every documented reason parses from Apple's string and has its remedy", arguments: APNsReason.documented)
    func remedy(reason: APNsReason) {
        #expect(APNsReason(rawValue: reason.rawValue) == reason)
        #expect(ReasonTests.expectedRemedies[reason.rawValue] == reason.remedy())
        #expect(!reason.meaning.isEmpty)
    }

    @Test("the table covers every documented reason, and Apple's variant spellings map")
    func coverage() {
        #expect(ReasonTests.expectedRemedies.count == APNsReason.documented.count)
        #expect(APNsReason(rawValue: "Service Unavailable") == .serviceUnavailable)
        #expect(APNsReason(rawValue: "BadEnvironmentKeyInToken") == .badEnvironmentKeyIdInToken)
        #expect(APNsReason(rawValue: "SomethingNew") == .unknown("SomethingNew"))
        #expect(APNsReason.unknown("X").remedy() == .rejectRequest)
    }

    @Test("statuses match Apple's table")
    func statuses() {
        #expect(APNsReason.unregistered.status == 410)
        #expect(APNsReason.payloadTooLarge.status == 413)
        #expect(APNsReason.tooManyRequests.status == 429)
        #expect(APNsReason.expiredProviderToken.status == 403)
        #expect(APNsReason.badPath.status == 404)
        #expect(APNsReason.methodNotAllowed.status == 405)
        #expect(APNsReason.shutdown.status == 503)
    }

    @Test("a 410 carries the time the token died")
    func gone() {
        let result = APNsResult(
            status: 410, headers: [("apns-id", "x")],
            body: Array(#"{"reason":"Unregistered","timestamp":1796000000123}"#.utf8))
        #expect(result.reason == .unregistered)
        #expect(result.remedy == .deleteToken)
        #expect(result.invalidatedAt == Date(timeIntervalSince1970: 1_796_000_000.123))
        #expect(result.apnsID == "x")
    }

    @Test("Retry-After is honoured in the remedy")
    func retryAfter() {
        let result = APNsResult(
            status: 429, headers: [("retry-after", "30")], body: Array(#"{"reason":"TooManyRequests"}"#.utf8))
        #expect(result.remedy == .retry(after: .seconds(30)))
        let without = APNsResult(status: 503, headers: [], body: [])
        #expect(without.reason == .serviceUnavailable)
        #expect(without.remedy == .retry(after: nil))
    }

    @Test("BadDeviceToken deletes only when the token's environment matches the host")
    func environmentMismatch() {
        let body = Array(#"{"reason":"BadDeviceToken"}"#.utf8)
        let matched = APNsResult(
            status: 400, headers: [], body: body, tokenEnvironment: .sandbox, hostEnvironment: .sandbox)
        #expect(matched.remedy == .deleteToken)
        #expect(!matched.environmentMismatch)
        let mismatched = APNsResult(
            status: 400, headers: [], body: body, tokenEnvironment: .production, hostEnvironment: .sandbox)
        #expect(mismatched.remedy == .rejectRequest)
        #expect(mismatched.environmentMismatch)
        #expect(mismatched.explanation.contains("different environment"))
    }

    @Test("DeviceTokenNotForTopic means a dead token only when the topic was right")
    func notForTopic() {
        let body = Array(#"{"reason":"DeviceTokenNotForTopic"}"#.utf8)
        #expect(APNsResult(status: 400, headers: [], body: body, topicHadSuffix: true).remedy == .deleteToken)
        #expect(APNsResult(status: 400, headers: [], body: body, topicHadSuffix: false).remedy == .rejectRequest)
    }
}
