import DropTrackContract
import DropTrackDoctor
import DropTrackModel
import DropTrackWire
import Foundation

/// Pushes and contexts for the doctor's tests: the committed DeliveryAttributes vectors, sent
/// correctly, and helpers that break one thing at a time.
package enum DoctorFixtures {
    /// The moment of sending: the update vector's timestamp.
    package static let now: Int64 = 1_796_000_100
    package static let bundle = "com.droptrack.demo"
    package static let topic = bundle + APNsLimits.liveActivityTopicSuffix
    /// An 80-byte update token, as Live Activities issue them.
    package static let updateToken = String(repeating: "a1", count: 80)
    /// A 32-byte push-to-start token.
    package static let startToken = String(repeating: "b2", count: 32)
    package static let fcmToken = "fcm-token:APA91bH-" + String(repeating: "x", count: 120)
    package static let project = "droptrack-demo"
    package static let channelID = Data(repeating: 9, count: 16).base64EncodedString()

    package static func text(_ name: String) -> String { String(decoding: try! vector(name), as: UTF8.self) }

    package static let startJSON = text("apns/start.json")
    package static let updateJSON = text("apns/update.json")
    package static let endJSON = text("apns/end.json")
    package static let androidUpdate = text("android/update.on-the-way.json")

    package static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A provider token with the given parts (the signature is not real; the doctor reads its
    /// length and encoding, never verifies it).
    package static func jwt(
        iat: Int64 = now - 60, alg: String = "ES256", kid: String = "KEY1234567", iss: String = "TEAM123456",
        signature: [UInt8] = Array(repeating: 7, count: 64)
    ) -> String {
        let header = base64URL(Array(#"{"alg":"\#(alg)","kid":"\#(kid)"}"#.utf8))
        let claims = base64URL(Array(#"{"iss":"\#(iss)","iat":\#(iat)}"#.utf8))
        return "\(header).\(claims).\(base64URL(signature))"
    }

    /// The headers a correct Live Activity push carries.
    package static func headers(priority: String = "5", authorization: String? = "bearer " + jwt()) -> [(
        name: String, value: String
    )] {
        var list: [(name: String, value: String)] = [
            ("apns-topic", topic), ("apns-push-type", "liveactivity"), ("apns-priority", priority),
        ]
        if let authorization { list.insert(("authorization", authorization), at: 0) }
        return list
    }

    package static func apns(
        _ body: String, token: String = updateToken, priority: String = "5",
        headers: [(name: String, value: String)]? = nil, path: String? = nil, host: String? = nil,
        method: String = "POST"
    ) -> DoctorPush {
        .apns(
            method: method, path: path ?? "/3/device/\(token)", headers: headers ?? self.headers(priority: priority),
            body: Array(body.utf8), host: host)
    }

    package static var cleanStart: DoctorPush { apns(startJSON, token: startToken, priority: "10") }
    package static var cleanUpdate: DoctorPush { apns(updateJSON) }
    package static var cleanEnd: DoctorPush { apns(endJSON, priority: "10") }

    /// `json` with `aps` changed.
    package static func editAPS(_ json: String, _ change: (inout [String: JSONValue]) -> Void) -> String {
        var root = try! JSONValue.parse(json).objectValue!
        var aps = root["aps"]!.objectValue!
        change(&aps)
        root["aps"] = .object(aps)
        return String(decoding: JSONValue.object(root).serialized(), as: UTF8.self)
    }

    /// `json` with `aps.content-state` changed.
    package static func editState(_ json: String, _ change: (inout [String: JSONValue]) -> Void) -> String {
        editAPS(json) { aps in
            var state = aps["content-state"]!.objectValue!
            change(&state)
            aps["content-state"] = .object(state)
        }
    }

    /// An FCM send of the Android update vector, with `change` applied to the message.
    package static func fcm(
        project: String = project, _ change: (inout [String: JSONValue]) -> Void = { _ in }
    ) -> DoctorPush {
        let data = try! JSONValue.parse(androidUpdate)
        var message: [String: JSONValue] = [
            "token": .string(fcmToken), "data": data,
            "android": .object(["priority": .string("high"), "ttl": .string("60s")]),
        ]
        change(&message)
        let body = JSONValue.object(["message": .object(message)]).serialized()
        return .fcm(body: body, path: "/v1/projects/\(project)/messages:send")
    }

    /// `message.data` changed.
    package static func fcmData(_ change: @escaping (inout [String: JSONValue]) -> Void) -> DoctorPush {
        fcm { message in
            var data = message["data"]!.objectValue!
            change(&data)
            message["data"] = .object(data)
        }
    }

    /// `message.android` changed.
    package static func fcmAndroid(_ change: @escaping (inout [String: JSONValue]) -> Void) -> DoctorPush {
        fcm { message in
            var android = message["android"]!.objectValue!
            change(&android)
            message["android"] = .object(android)
        }
    }

    /// Everything a server knows about a healthy iOS update token and its activity.
    package static func iosContext(
        kind: DoctorContext.Token.Kind = .perActivity, state: DoctorContext.Activity.State = .active
    )
        -> DoctorContext
    {
        DoctorContext(
            now: now, client: .activitykit, contract: .delivery,
            token: .init(
                kind: kind, environment: .sandbox, bundleId: bundle, attributesType: DeliveryAttributes.typeName,
                activityId: kind == .perActivity ? "act-A-1042" : nil, correlationId: "A-1042", contractVersion: nil,
                deviceId: "iphone-1", userId: "u1", registeredAt: now - 50, lastSeenAt: now - 50, successCount: 3),
            device: .init(
                osVersion: "18.1", appBuild: "42", isSimulator: false, isDevClient: false, areActivitiesEnabled: true,
                frequentPushesEnabled: true, activeActivities: 1, launchesWithoutPushToStartToken: 0),
            activity: .init(
                id: "act-A-1042", state: state, startedAt: now - 100, startAcceptedAt: now - 100,
                startConfirmedAt: now - 95, tokenReceivedAt: now - 50, lastTimestampSent: now - 100,
                domainTerminal: false, deviceCount: 1, liveTokenCount: 1),
            history: .init(
                priority10LastHour: 2, startsAccepted: state == .pendingStart ? 0 : 1, retryCount: 0,
                sendsWithoutOutcome: 0, connectionErrorRate: 0.01, connectionsOpenedLastMinute: 1,
                jwtMintsLast20Minutes: 1, lagSeconds: 1),
            config: .init(
                bundleId: bundle, environment: .sandbox, authMode: .token, keyId: "KEY1234567", teamId: "TEAM123456",
                broadcastEnabled: true,
                retry: .init(maxRetries: 2, retryStatuses: [429, 500, 503], honorsRetryAfter: true, layers: 1),
                requestTimeoutSeconds: 10, clockSkewSeconds: 0.5, jwtRefreshSeconds: 3000, tlsVerified: true))
    }

    /// The same for a start: a push-to-start token, an activity not started yet.
    package static func iosStartContext() -> DoctorContext {
        var context = iosContext(kind: .pushToStart, state: .pendingStart)
        context.activity?.startedAt = nil
        context.activity?.startAcceptedAt = nil
        context.activity?.startConfirmedAt = nil
        context.activity?.tokenReceivedAt = nil
        context.activity?.lastTimestampSent = nil
        return context
    }

    /// Everything a server knows about a healthy Android token and its Live Update.
    package static func androidContext() -> DoctorContext {
        DoctorContext(
            now: now, contract: .delivery,
            token: .init(
                kind: .fcm, firebaseProject: project, package: "com.droptrack.demo", deviceId: "pixel-1", userId: "u1",
                registeredAt: now - 3600, lastSeenAt: now - 3600, successCount: 10),
            device: .init(
                osVersion: "16", manufacturer: "Google", notificationsEnabled: true, canPostPromoted: true,
                userAllowsLiveUpdates: true),
            activity: .init(
                id: "act-A-1042", state: .active, startedAt: now - 100, lastSequence: now - 100, domainTerminal: false),
            history: .init(sendsToDeviceLastMinute: 1, sendsToDeviceLastHour: 3),
            config: .init(
                fcmProjectId: project, fcmScopes: ["https://www.googleapis.com/auth/firebase.messaging"],
                fcmAssertion: .init(
                    alg: "RS256", lifetimeSeconds: 3600, audience: "https://oauth2.googleapis.com/token",
                    padding: "pkcs1"), requestTimeoutSeconds: 10))
    }

    /// A field map with an enum, a range and a correlation key, for apps without a compiled type.
    package static let scoreSchema = ContractSchema(
        attributesType: "ScoreAttributes", version: "3", compatibleVersions: ["2.5"],
        contentState: [
            "home": .init(type: "integer", minimum: 0), "away": .init(type: "integer", minimum: 0),
            "period": .init(type: "string", values: ["first", "second", "final"]),
            "kickoff": .init(type: "date", optional: true),
        ],
        attributes: ["matchId": .init(type: "string")], correlationKey: "matchId")
}

extension DoctorFixtures {
    /// A context with every fact set, so encoding it writes every key the document knows.
    package static var everyFact: DoctorContext {
        let schema = ContractSchema(
            attributesType: "ScoreAttributes", version: "3", compatibleVersions: ["2"],
            contentState: [
                "kickoff": .init(
                    type: "date", optional: true, values: ["a"], minimum: 0, maximum: 1, maxLength: 4,
                    dateEncoding: "iso8601")
            ], attributes: ["matchId": .init(type: "string")], output: "expo-widgets", widgetName: "Score",
            correlationKey: "matchId", mutableAttributes: ["venue"], androidData: ["eta": .init(type: "epoch-millis")],
            androidWhenKey: "eta", androidShortTextKey: "score", widgetNames: ["ScoreLarge"])
        return DoctorContext(
            now: now, client: .expoWidgets, contract: DoctorContract(schema: schema),
            contracts: ["ScoreAttributes": DoctorContract(schema: schema)],
            token: .init(
                kind: .perActivity, environment: .sandbox, bundleId: bundle, firebaseProject: project,
                package: "com.droptrack.demo", attributesType: "ScoreAttributes", activityId: "a", correlationId: "c",
                contractVersion: "3", deviceId: "d", userId: "u", registeredAt: 1, lastSeenAt: 2, supersededBy: "f",
                dead: .init(reason: "Unregistered", at: 3), successCount: 4),
            device: .init(
                osVersion: "18.1", appBuild: "42", manufacturer: "Google", isSimulator: false, isDevClient: false,
                areActivitiesEnabled: true, frequentPushesEnabled: true, notificationsEnabled: true,
                canPostPromoted: true, userAllowsLiveUpdates: true, activeActivities: 1,
                launchesWithoutPushToStartToken: 0),
            activity: .init(
                id: "a", state: .active, startedAt: 1, endedAt: 2, startAcceptedAt: 3, startConfirmedAt: 4,
                tokenReceivedAt: 5, lastTimestampSent: 6, lastLocalTimestamp: 7, lastSequence: 8,
                lastSent: .object(["aps": .object([:])]), domainTerminal: false, terminalSince: 9,
                staticAttributes: .object(["matchId": .string("m")]), domainAttributes: .object([:]),
                immediateDismissal: false, significant: false, deviceCount: 1, liveTokenCount: 1),
            history: .init(
                priority10LastHour: 1, startsAccepted: 1, lastAlertAt: 1, retryOfApnsId: "x", retryCount: 0,
                sendsWithoutOutcome: 0, connectionErrorRate: 0, connectionsOpenedLastMinute: 1,
                jwtMintsLast20Minutes: 1, lagSeconds: 1, sendsToDeviceLastMinute: 1, sendsToDeviceLastHour: 1),
            config: .init(
                bundleId: bundle, environment: .sandbox, authMode: .token, keyId: "KEY1234567", teamId: "TEAM123456",
                keyEnvironment: .sandbox, keyTopics: [bundle], broadcastEnabled: true, fcmProjectId: project,
                fcmScopes: ["s"],
                fcmAssertion: .init(alg: "RS256", lifetimeSeconds: 3600, audience: "a", padding: "pkcs1"),
                retry: .init(maxRetries: 2, retryStatuses: [429], honorsRetryAfter: true, layers: 1),
                requestTimeoutSeconds: 10, lagTargetSeconds: 60, priority10Budget: 15, maxActivitiesPerDevice: 5,
                activityLifetimeSeconds: 28800, confirmationTimeoutSeconds: 60, endAfterTerminalSeconds: 1800,
                maxTimestampAgeSeconds: 3600, updateTTLSeconds: 3600, clockSkewSeconds: 0, jwtRefreshSeconds: 3000,
                tlsVerified: true),
            channel: .init(
                id: channelID, environment: .sandbox, storagePolicy: .noMessageStored, countInEnvironment: 1,
                activeActivities: 1),
            response: .init(
                status: 200, reason: "r", timestamp: 1, fcmError: "e", message: "m", retryAfter: 1, transportError: "t")
        )
    }
}
