import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Synchronization
import Testing

/// A crowd of users on the server and the emulators: user `fan-<i>` has an iOS 17 iPhone (update
/// tokens) when i % 3 == 0, an iOS 18 iPhone (broadcast channel) when i % 3 == 1, and an Android phone
/// (FCM) otherwise, each registered as its app would. Both emulators' deliveries are counted per token.
final class Crowd: Sendable {
    let server: ServerHarness
    let older: [IPhoneSimulator]
    let modern: [IPhoneSimulator]
    /// The Android phones' FCM tokens, by user.
    let androidTokens: [String: String]
    /// What the emulators delivered.
    let counts = DeliveryCounts()

    init(engine: StoreEngine, users: Int, tweak: (inout ServerConfiguration) -> Void = { _ in }) throws {
        let server = try ServerHarness(engine: engine, tweak: tweak)
        self.server = server
        let owners = Mutex<[DeviceToken: String]>([:])
        func phone(_ user: String, os: Int) -> IPhoneSimulator {
            let device = "device-\(user)"
            return IPhoneSimulator(
                deviceID: device, settings: IPhoneSettings(osVersion: os),
                // The iOS 17 fans' app has started an activity itself before (its placeholder), so
                // ActivityKit hands out their push-to-start tokens.
                appRequestedBefore: true
            ) { event in
                switch event {
                case .pushToStart(let type, let token):
                    owners.withLock { $0[token] = device }
                    _ = try? server.registry.registerToken(
                        app: "app1", kind: .pushToStart,
                        body: .object([
                            "userId": .string(user), "deviceId": .string(device), "token": .string(token.wireValue),
                            "environment": .string("sandbox"), "attributesType": .string(type),
                        ]))
                case .activity(_, _, let attributes, let token):
                    owners.withLock { $0[token] = device }
                    _ = try? server.registry.registerToken(
                        app: "app1", kind: .activity,
                        body: .object([
                            "activityId": attributes["orderId"] ?? .null, "deviceId": .string(device),
                            "token": .string(token.wireValue), "environment": .string("sandbox"),
                        ]))
                }
            }
        }
        var older: [IPhoneSimulator] = []
        var modern: [IPhoneSimulator] = []
        var androidTokens: [String: String] = [:]
        for index in 0..<users {
            let user = "fan-\(index)"
            switch index % 3 {
            case 0: older.append(phone(user, os: 17))
            case 1: modern.append(phone(user, os: 18))
            default: androidTokens[user] = server.fcm.newToken()
            }
        }
        self.older = older
        self.modern = modern
        self.androidTokens = androidTokens
        let phones = Dictionary(uniqueKeysWithValues: (older + modern).map { ($0.deviceID, $0) })
        let subscribers = modern
        let counts = self.counts
        server.apns.emulator.addDeliveryListener { delivery in
            if let channel = delivery.channelID {
                for phone in subscribers where phone.channels.contains(channel) {
                    phone.receiveBroadcast(channelID: channel, payload: delivery.payload, priority: delivery.priority)
                }
            } else if let token = delivery.token {
                counts.apnsPerToken.withLock { $0[token, default: 0] += 1 }
                if let device = owners.withLock({ $0[token] }), let phone = phones[device] {
                    phone.receive(token: token, payload: delivery.payload, priority: delivery.priority)
                }
            }
        }
        server.fcm.emulator.addDeliveryListener { delivery in
            counts.fcmEvents.withLock { $0[delivery.token, default: []].append(delivery.data["event"] ?? "?") }
        }
        for phone in older + modern { phone.registerPushToStartTokens() }
        for (user, token) in androidTokens {
            _ = try server.registry.registerToken(
                app: "app1", kind: .fcm,
                body: .object([
                    "userId": .string(user), "deviceId": .string("device-\(user)"), "token": .string(token),
                ]))
        }
    }

    /// A DeliveryAttributes start for `audience` (JSON), on a broadcast channel.
    func start(_ id: String, audience: String, key: String? = nil) throws -> (response: JSONValue, created: Bool) {
        try server.registry.startActivity(
            app: "app1", body: server.json(Self.startBody(id, audience: audience, key: key)))
    }

    static func startBody(_ id: String, audience: String, key: String? = nil) -> String {
        #"{"activityId":"\#(id)","audience":\#(audience),"attributesType":"DeliveryAttributes","attributes":{"orderId":"\#(id)"},"event":{"type":"delivery.step","data":{"step":"placed"}},"alert":{"title":"Kick-off"},"idempotencyKey":"\#(key ?? "start-" + id)","broadcast":{"storagePolicy":"no-storage"}}"#
    }

    func events(_ user: String) -> [String] { counts.fcmEvents.withLock { $0[androidTokens[user] ?? ""] ?? [] } }

    func stop() { server.stop() }
}

/// Deliveries the emulators made, counted as they happen.
final class DeliveryCounts: Sendable {
    /// The `event` of every FCM message, by token, in order.
    let fcmEvents = Mutex<[String: [String]]>([:])
    /// APNs requests to each device token (push-to-start and updates; broadcasts are not per token).
    let apnsPerToken = Mutex<[DeviceToken: Int]>([:])
}

@Suite("Audiences: tags on users and devices, one shared activity for every member's devices")
struct AudienceTests {
    @Test(
        "a tag audience of 1,000 users on iOS 17, iOS 18 and Android gets one start each, then every update and the end",
        arguments: StoreEngine.allCases)
    func thousandMembers(engine: StoreEngine) throws {
        let crowd = try Crowd(engine: engine, users: 1000)
        defer { crowd.stop() }
        let server = crowd.server
        // Half are tagged as users, half through their device: both count for the user.
        for index in 0..<1000 {
            let subject: TagSubject = index % 2 == 0 ? .user("fan-\(index)") : .device("device-fan-\(index)")
            _ = try server.registry.setTags(app: "app1", of: subject, ["fans", "city:paris"])
        }
        let bystander = server.fcm.newToken()
        _ = try server.registry.registerToken(
            app: "app1", kind: .fcm,
            body: server.json(#"{"userId":"bystander","deviceId":"pixel-b","token":"\#(bystander)"}"#))

        let (started, created) = try crowd.start(
            "match-1", audience: #"{"tags":{"all":["fans"],"any":["city:paris"]}}"#)
        #expect(created && started["members"]?.numberValue == 1000, "\(started)")
        #expect(started["destinations"]?.numberValue == 1000)
        #expect(started["destinationsByKind"]?["push_to_start"]?.numberValue == 667)
        #expect(started["destinationsByKind"]?["fcm"]?.numberValue == 333)
        try server.drain(timeout: .seconds(120))
        let channel = try #require(
            try server.store.transaction { try $0.activity(app: "app1", id: "match-1") }?.channelId)
        #expect(crowd.older.allSatisfy { $0.activities.count == 1 && $0.activities[0].updateToken.isEmpty == false })
        #expect(crowd.modern.allSatisfy { $0.activities.count == 1 && $0.activities[0].channelID == channel })
        #expect(crowd.androidTokens.keys.allSatisfy { crowd.events($0) == ["start"] })
        #expect(crowd.counts.fcmEvents.withLock { $0[bystander] } == nil, "an untagged user gets nothing")
        #expect(
            eventually(timeout: .seconds(30)) {
                (try? server.store.transaction { try $0.tokens(app: "app1", activityId: "match-1") })?.count == 334
            }, "every iOS 17 phone registered its update token")
        let progress = try server.registry.describe(app: "app1", activityId: "match-1")["progress"]
        #expect(progress?["members"]?.numberValue == 1000 && progress?["devicesTargeted"]?.numberValue == 1000)
        #expect(
            progress?["started"]?.numberValue == 1000 && progress?["pending"]?.numberValue == 0,
            "\(String(describing: progress))")

        _ = try server.registry.applyEvent(
            app: "app1", activityId: "match-1",
            body: server.json(#"{"type":"delivery.step","data":{"step":"confirmed"},"terminal":"update"}"#))
        try server.drain(timeout: .seconds(120))
        let ended = try server.registry.endActivity(
            app: "app1", activityId: "match-1",
            body: server.json(#"{"alert":{"title":"Full time"}}"#))
        #expect(ended["destinations"]?.numberValue == 668, "update tokens, the channel, the Android phones")
        try server.drain(timeout: .seconds(120))

        let final = try #require(try server.store.transaction { try $0.activity(app: "app1", id: "match-1") })
        let broadcasts = server.apns.emulator.records(after: 0).filter { $0.kind == "broadcast" }
        #expect(broadcasts.count == 2 && broadcasts.allSatisfy { $0.status == 200 }, "one per update and end")
        for phone in crowd.older + crowd.modern {
            #expect(phone.activities.first?.contentState == final.contentState, "\(phone.deviceID)")
            #expect(phone.activities.first?.endedAt != nil, "\(phone.deviceID)")
            #expect(phone.drops.isEmpty, "\(phone.deviceID): \(phone.drops)")
        }
        #expect(crowd.androidTokens.keys.allSatisfy { crowd.events($0) == ["start", "update", "end"] })
        // iOS 18 phones are reached per token once (the start); the rest came on the channel.
        let perToken = crowd.counts.apnsPerToken.withLock { $0 }
        #expect(crowd.modern.allSatisfy { phone in phone.tokens.reduce(0) { $0 + (perToken[$1] ?? 0) } == 1 })
        #expect(crowd.older.allSatisfy { phone in phone.tokens.reduce(0) { $0 + (perToken[$1] ?? 0) } == 3 })
    }

    @Test("a user tagged after the start gets no late start and no updates", arguments: StoreEngine.allCases)
    func noLateJoiners(engine: StoreEngine) throws {
        let crowd = try Crowd(engine: engine, users: 6)
        defer { crowd.stop() }
        let server = crowd.server
        for user in ["fan-0", "fan-1", "fan-2"] {
            _ = try server.registry.setTags(app: "app1", of: .user(user), ["vip"])
        }
        #expect(try crowd.start("late-1", audience: #"{"tags":{"any":["vip"]}}"#).response["members"]?.numberValue == 3)
        try server.drain()
        for user in ["fan-3", "fan-4", "fan-5"] {
            _ = try server.registry.setTags(app: "app1", of: .user(user), ["vip"])
        }
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "late-1",
            body: server.json(#"{"type":"delivery.step","data":{"step":"confirmed"},"terminal":"update"}"#))
        try server.drain()
        #expect(
            try server.store.transaction { try $0.members(app: "app1", activityId: "late-1") } == [
                "fan-0", "fan-1", "fan-2",
            ])
        #expect(crowd.events("fan-2") == ["start", "update"])
        #expect(crowd.events("fan-5") == [], "tagged after the start")
        #expect(crowd.older[1].activities.isEmpty && crowd.modern[1].activities.isEmpty, "fan-3 and fan-4 have nothing")
        #expect(crowd.older[0].activities.count == 1 && crowd.modern[0].activities.count == 1)
    }

    @Test(
        "an explicit refresh makes late matches members and starts their devices, once", arguments: StoreEngine.allCases
    )
    func refreshAddsLateJoiners(engine: StoreEngine) throws {
        let crowd = try Crowd(engine: engine, users: 6)
        defer { crowd.stop() }
        let server = crowd.server
        for user in ["fan-0", "fan-1", "fan-2"] {
            _ = try server.registry.setTags(app: "app1", of: .user(user), ["vip"])
        }
        _ = try crowd.start("late-2", audience: #"{"tags":{"any":["vip"]}}"#)
        try server.drain()
        for user in ["fan-3", "fan-4", "fan-5"] {
            _ = try server.registry.setTags(app: "app1", of: .user(user), ["vip"])
        }
        let refreshed = try server.call("POST", "/v1/activities/late-2/audience/refresh")
        #expect(refreshed.status == 200 && refreshed.body["joined"]?.numberValue == 3, "\(refreshed.text)")
        #expect(refreshed.body["members"]?.numberValue == 6 && refreshed.body["destinations"]?.numberValue == 3)
        try server.drain()
        #expect(
            crowd.older[1].activities.count == 1 && crowd.modern[1].activities.count == 1, "fan-3 and fan-4 started")
        #expect(crowd.events("fan-5") == ["start"])
        let again = try server.call("POST", "/v1/activities/late-2/audience/refresh")
        #expect(again.body["joined"]?.numberValue == 0 && again.body["members"]?.numberValue == 6)
        try server.drain()
        #expect(crowd.older[1].activities.count == 1 && crowd.events("fan-5") == ["start"], "no second start")
        let single = try server.call("POST", "/v1/activities", deliveryStart)
        #expect(single.status == 201)
        let refused = try server.call("POST", "/v1/activities/order-9/audience/refresh")
        #expect(refused.status == 409 && refused.errorCode == "not_shared", "\(refused.text)")
    }

    @Test(
        "progress counts started, failed by reason and pending from the outbox and the timeline",
        arguments: StoreEngine.allCases)
    func progress(engine: StoreEngine) throws {
        let crowd = try Crowd(engine: engine, users: 3)
        defer { crowd.stop() }
        let server = crowd.server
        // A token the FCM emulator never issued: the start to it fails UNREGISTERED.
        _ = try server.registry.registerToken(
            app: "app1", kind: .fcm,
            body: server.json(#"{"userId":"ghost","deviceId":"old-phone","token":"never-issued-token-0001"}"#))
        _ = try crowd.start("counted-1", audience: #"{"userIds":["fan-0","fan-1","fan-2","ghost","no-devices"]}"#)
        let before = try server.registry.describe(app: "app1", activityId: "counted-1")["progress"]
        #expect(before?["members"]?.numberValue == 5 && before?["devicesTargeted"]?.numberValue == 4)
        try server.drain()
        let after = try server.registry.describe(app: "app1", activityId: "counted-1")["progress"]
        #expect(
            after?["started"]?.numberValue == 3 && after?["pending"]?.numberValue == 0, "\(String(describing: after))")
        #expect(after?["failedByReason"] == .object(["UNREGISTERED": .number(1)]), "\(String(describing: after))")
    }

    @Test("the console and the diagnosis show a shared activity by its audience and members")
    func consoleAndDiagnosis() throws {
        let crowd = try Crowd(engine: .sqlite, users: 3)
        defer { crowd.stop() }
        let server = crowd.server
        _ = try crowd.start("shown-1", audience: #"{"userIds":["fan-0","fan-2"]}"#)
        try server.drain()
        let console = ConsoleTests()
        let (cookie, _) = try console.signIn(server)
        let list = try console.get(server, "/console/", cookie: cookie)
        #expect(list.status == 200 && list.text.contains("audience (users)"), "\(list.text)")
        let detail = try console.get(server, "/console/activities/shown-1", cookie: cookie)
        #expect(detail.status == 200 && detail.text.contains("audience (users): 2 members"))
        let diagnosis = try server.call("GET", "/v1/activities/shown-1/diagnosis")
        #expect(diagnosis.status == 200, "\(diagnosis.text)")
        let devices = Set(diagnosis.body["devices"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } ?? [])
        #expect(devices.isSuperset(of: ["push_to_start", "fcm"]), "the members' devices: \(diagnosis.text)")
    }

    @Test("the same idempotency key gives the same answer and one start per device", arguments: StoreEngine.allCases)
    func idempotentAudienceStart(engine: StoreEngine) throws {
        let crowd = try Crowd(engine: engine, users: 3)
        defer { crowd.stop() }
        let server = crowd.server
        let body = Crowd.startBody("again-1", audience: #"{"userIds":["fan-0","fan-1","fan-2","fan-0"]}"#)
        let first = try server.call("POST", "/v1/activities", body)
        #expect(first.status == 201 && first.body["members"]?.numberValue == 3, "\(first.text)")
        try server.drain()
        let second = try server.call("POST", "/v1/activities", body)
        #expect(second.status == 200 && second.body == first.body)
        try server.drain()
        let perToken = crowd.counts.apnsPerToken.withLock { $0 }
        for phone in crowd.older + crowd.modern {
            #expect(phone.activities.count == 1)
            #expect(phone.pushToStartTokensByType.values.map { perToken[$0] ?? 0 } == [1], "one push-to-start")
        }
        #expect(crowd.events("fan-2") == ["start"])
    }

    @Test("exactly one of userId and audience; an empty audience and one above the cap are refused with the fix")
    func refusals() throws {
        let crowd = try Crowd(engine: .memory, users: 3) { $0.maxAudienceMembers = 2 }
        defer { crowd.stop() }
        let server = crowd.server
        let both = Crowd.startBody("r1", audience: #""everyone""#).replacingOccurrences(
            of: #""audience""#, with: #""userId":"fan-0","audience""#)
        let answer = try server.call("POST", "/v1/activities", both)
        #expect(answer.status == 400 && answer.errorField == "audience", "\(answer.text)")
        #expect(answer.text.contains("userId") && answer.text.contains("audience"))
        let neither = Crowd.startBody("r1", audience: "null")
        let missing = try server.call("POST", "/v1/activities", neither)
        #expect(missing.status == 400 && missing.errorField == "userId" && missing.text.contains("audience"))
        let tooMany = try server.call("POST", "/v1/activities", Crowd.startBody("r2", audience: #""everyone""#))
        #expect(tooMany.status == 422 && tooMany.errorCode == "audience_too_large", "\(tooMany.text)")
        #expect(tooMany.text.contains("broadcast") && tooMany.text.contains("more than 2 users"), "\(tooMany.text)")
        let none = try server.call(
            "POST", "/v1/activities", Crowd.startBody("r3", audience: #"{"tags":{"all":["nobody-has-this"]}}"#))
        #expect(none.status == 422 && none.errorCode == "audience_empty")
        for (audience, field) in [
            (#"{"tags":{"all":["bad tag"]}}"#, "audience.tags.all[0]"), (#"{"userIds":[]}"#, "audience.userIds"),
            (#""someone""#, "audience"), (#"{"userIds":["a"],"tags":{"any":["x"]}}"#, "audience"),
        ] {
            let refused = try server.call("POST", "/v1/activities", Crowd.startBody("r4", audience: audience))
            #expect(refused.status == 400 && refused.errorField == field, "\(audience): \(refused.text)")
        }
        // The channel a broadcast start opens before its transaction is deleted again; no push goes out.
        #expect(
            server.apns.emulator.records(after: 0).allSatisfy { $0.kind == "channel" },
            "nothing was sent for a refused start")
        #expect(server.apns.emulator.channelIDs.isEmpty)
    }

    @Test(
        "tags over HTTP: a device sets its own user's and device's tags, not another user's (403); members see a shared activity"
    )
    func deviceCredentialTags() throws {
        let server = try ServerHarness(deviceKeys: true)
        defer { server.stop() }
        let credential = try server.credential(user: "uA")
        let registered = try server.call(
            "POST", "/v1/tokens/fcm", #"{"deviceId":"dA","token":"\#(server.fcm.newToken())"}"#, key: credential)
        #expect(registered.status == 201, "\(registered.text)")
        _ = try server.call(
            "POST", "/v1/tokens/fcm", #"{"userId":"uB","deviceId":"dB","token":"\#(server.fcm.newToken())"}"#)

        let own = try server.call(
            "PUT", "/v1/users/uA/tags", #"{"tags":["gold","city:paris","gold"]}"#, key: credential)
        #expect(
            own.status == 200 && own.body["tags"] == .array([.string("city:paris"), .string("gold")]), "\(own.text)")
        let device = try server.call("PUT", "/v1/devices/dA/tags", #"{"tags":["beta"]}"#, key: credential)
        #expect(device.status == 200, "\(device.text)")
        #expect(
            try server.call("GET", "/v1/devices/dA/tags", key: credential).body["tags"] == .array([.string("beta")]))
        let otherUser = try server.call("PUT", "/v1/users/uB/tags", #"{"tags":["gold"]}"#, key: credential)
        #expect(otherUser.status == 403 && otherUser.errorCode == "other_user", "\(otherUser.text)")
        let otherDevice = try server.call("PUT", "/v1/devices/dB/tags", #"{"tags":["gold"]}"#, key: credential)
        #expect(otherDevice.status == 403 && otherDevice.errorCode == "other_device", "\(otherDevice.text)")
        #expect(try server.call("GET", "/v1/users/uB/tags", key: credential).status == 403)
        #expect(try server.call("GET", "/v1/users/uB/tags").body["tags"] == .array([]), "the backend reads any user's")
        let bad = try server.call("PUT", "/v1/users/uA/tags", #"{"tags":["ok","no spaces"]}"#, key: credential)
        #expect(bad.status == 400 && bad.errorField == "tags[1]", "\(bad.text)")
        let tooMany = try server.call(
            "PUT", "/v1/users/uA/tags", #"{"tags":[\#((0...100).map { "\"t\($0)\"" }.joined(separator: ","))]}"#)
        #expect(tooMany.status == 400 && tooMany.errorField == "tags" && tooMany.text.contains("100"))
        #expect(try server.call("PUT", "/v1/users/uA/tags", #"{"tags":[]}"#).body["tags"] == .array([]))

        let start = try server.call(
            "POST", "/v1/activities",
            deliveryStart.replacingOccurrences(of: #""userId":"u1""#, with: #""audience":{"userIds":["uA","uB"]}"#))
        #expect(start.status == 201, "\(start.text)")
        let seen = try server.call("GET", "/v1/activities/order-9", key: credential)
        #expect(seen.status == 200 && seen.body["audience"]?["kind"] == .string("users"), "\(seen.text)")
        // A member's view is its own devices': the audience's totals are the backend's.
        #expect(seen.body["progress"] == nil || seen.body["progress"] == .null, "\(seen.text)")
        let stranger = try server.credential(user: "uC")
        #expect(try server.call("GET", "/v1/activities/order-9", key: stranger).status == 404)
        let report = try server.call(
            "POST", "/v1/activities/order-9/lifecycle", #"{"deviceId":"dA","state":"dismissed"}"#, key: credential)
        #expect(report.status == 200, "\(report.text)")
        let forOther = try server.call(
            "POST", "/v1/activities/order-9/lifecycle", #"{"deviceId":"dB","state":"dismissed"}"#, key: credential)
        #expect(forOther.status == 404, "a member reports for its own devices only")
    }
}
