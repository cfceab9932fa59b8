import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// A device credential's view and reach stop at its own user's devices: the hardening review read
/// every member's devices through one member's credential, and took over another user's device id.
@Suite("A device credential sees and touches its own user's devices only")
struct DeviceScopeTests {
    /// Two members, uA on phone dA and uB on phone dB, each with a push-to-start token and device facts,
    /// and a shared activity started for both; B also registers an update token.
    struct Shared {
        let server: ServerHarness
        let memberA: String
        let memberB: String
        let tokenB: String

        init(engine: StoreEngine = .sqlite) throws {
            server = try ServerHarness(engine: engine, deviceKeys: true)
            memberA = try server.credential(user: "uA")
            memberB = try server.credential(user: "uB")
            for (credential, device, os) in [(memberA, "dA", "17.2"), (memberB, "dB", "18.1")] {
                let registered = try server.call(
                    "POST", "/v1/tokens/push-to-start",
                    #"{"deviceId":"\#(device)","token":"\#(APNsHarness.randomToken())","environment":"sandbox","attributesType":"DeliveryAttributes","device":{"osVersion":"\#(os)","appBuild":"secret-build-\#(device)"}}"#,
                    key: credential)
                #expect(registered.status == 201, "\(registered.text)")
            }
            let start = try server.call(
                "POST", "/v1/activities",
                deliveryStart.replacingOccurrences(of: #""userId":"u1""#, with: #""audience":{"userIds":["uA","uB"]}"#))
            #expect(start.status == 201, "\(start.text)")
            tokenB = APNsHarness.randomToken()
            let update = try server.call(
                "POST", "/v1/tokens/activity",
                #"{"activityId":"order-9","deviceId":"dB","token":"\#(tokenB)","environment":"sandbox"}"#, key: memberB)
            #expect(update.status == 201, "\(update.text)")
            let report = try server.call(
                "POST", "/v1/activities/order-9/lifecycle",
                #"{"deviceId":"dB","state":"active","reason":"B's private words"}"#, key: memberB)
            #expect(report.status == 200, "\(report.text)")
        }
    }

    @Test(
        "a member's GET of a shared activity lists its own devices, tokens, facts and timeline only",
        arguments: StoreEngine.allCases)
    func memberView(engine: StoreEngine) throws {
        let shared = try Shared(engine: engine)
        let server = shared.server
        defer { server.stop() }
        try server.drain()
        let asA = try server.call("GET", "/v1/activities/order-9", key: shared.memberA)
        #expect(asA.status == 200, "\(asA.text)")
        #expect(asA.text.contains("dA"), "its own device is listed: \(asA.text)")
        for secret in ["dB", "18.1", "secret-build-dB", "B's private words", Fingerprint(of: shared.tokenB).value] {
            #expect(!asA.text.contains(secret), "member A reads \(secret) of member B: \(asA.text)")
        }
        #expect(asA.body["progress"] == nil || asA.body["progress"] == .null, "a member sees no audience totals")
        let asB = try server.call("GET", "/v1/activities/order-9", key: shared.memberB)
        #expect(asB.text.contains(Fingerprint(of: shared.tokenB).value) && !asB.text.contains("secret-build-dA"))
        // The backend still sees everyone.
        let backend = try server.call("GET", "/v1/activities/order-9")
        #expect(backend.text.contains("dA") && backend.text.contains("dB"))
    }

    @Test(
        "a device id holding another user's tokens is refused to a credential (409 device_taken); the owner keeps its device",
        arguments: StoreEngine.allCases)
    func takenDevice(engine: StoreEngine) throws {
        let shared = try Shared(engine: engine)
        let server = shared.server
        defer { server.stop() }
        // A, having read B's device id, registers its own token under it.
        for (path, body) in [
            (
                "/v1/tokens/push-to-start",
                #"{"deviceId":"dB","token":"\#(APNsHarness.randomToken())","environment":"sandbox","attributesType":"DeliveryAttributes","device":{"areActivitiesEnabled":false}}"#
            ),
            ("/v1/tokens/fcm", #"{"deviceId":"dB","token":"fcm-of-A","device":{"notificationsEnabled":false}}"#),
        ] {
            let taken = try server.call("POST", path, body, key: shared.memberA)
            #expect(taken.status == 409 && taken.errorCode == "device_taken", "\(path): \(taken.text)")
            #expect(taken.errorField == "deviceId")
        }
        // B is not locked out of its own device: update tokens, reports and tags still work.
        let update = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-9","deviceId":"dB","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#,
            key: shared.memberB)
        #expect(update.status == 201, "\(update.text)")
        let tags = try server.call("PUT", "/v1/devices/dB/tags", #"{"tags":["vip"]}"#, key: shared.memberB)
        #expect(tags.status == 200, "\(tags.text)")
        // B's facts were not rewritten: its activity is not diagnosed "Live Activities off".
        let tokens = try server.store.transaction { try $0.tokens(app: "app1", deviceIds: ["dB"]) }
        #expect(!tokens.isEmpty && tokens.allSatisfy { $0.device?["areActivitiesEnabled"] != .bool(false) })
        // The same token B's phone holds may move to another user: whoever holds it is that phone.
        let moved = try server.store.transaction {
            try $0.tokens(app: "app1", userId: "uB", kinds: [.pushToStart]).first
        }
        let phoneToken = try #require(moved).token.wireValue
        let signIn = try server.call(
            "POST", "/v1/tokens/push-to-start",
            #"{"deviceId":"dB","token":"\#(phoneToken)","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
            key: try server.credential(user: "uC"))
        #expect(signIn.status == 200 || signIn.status == 201, "\(signIn.text)")
    }

    @Test("facts sent with one user's token never rewrite another user's tokens on the same device id")
    func factsStayWithTheirUser() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        // The backend (trusted, no credential) once put two users' tokens on one device id.
        for (user, os) in [("u1", "17.0"), ("u2", "18.0")] {
            let registered = try server.call(
                "POST", "/v1/tokens/push-to-start",
                #"{"userId":"\#(user)","deviceId":"shared-id","token":"\#(APNsHarness.randomToken())","environment":"sandbox","attributesType":"DeliveryAttributes","device":{"osVersion":"\#(os)"}}"#
            )
            #expect(registered.status == 201, "\(registered.text)")
        }
        let tokens = try server.store.transaction { try $0.tokens(app: "app1", deviceIds: ["shared-id"]) }
        let byUser = Dictionary(uniqueKeysWithValues: tokens.map { ($0.userId ?? "", $0.device?["osVersion"]) })
        #expect(byUser["u1"] == .string("17.0") && byUser["u2"] == .string("18.0"), "\(byUser)")
    }

    @Test("a device's tags count for its user only when it holds one user's tokens")
    func deviceTagsNeedOneOwner() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        for user in ["u1", "u2"] {
            let registered = try server.call(
                "POST", "/v1/tokens/push-to-start",
                #"{"userId":"\#(user)","deviceId":"shared-id","token":"\#(APNsHarness.randomToken())","environment":"sandbox","attributesType":"DeliveryAttributes"}"#
            )
            #expect(registered.status == 201)
        }
        let single = try server.call(
            "POST", "/v1/tokens/push-to-start",
            #"{"userId":"u3","deviceId":"own-id","token":"\#(APNsHarness.randomToken())","environment":"sandbox","attributesType":"DeliveryAttributes"}"#
        )
        #expect(single.status == 201)
        for device in ["shared-id", "own-id"] {
            #expect(try server.call("PUT", "/v1/devices/\(device)/tags", #"{"tags":["vip"]}"#).status == 200)
        }
        let start = try server.call(
            "POST", "/v1/activities",
            deliveryStart.replacingOccurrences(of: #""userId":"u1""#, with: #""audience":{"tags":{"any":["vip"]}}"#))
        #expect(start.status == 201, "\(start.text)")
        #expect(start.body["members"]?.numberValue == 1, "only u3 owns its tagged device alone: \(start.text)")
    }
}
