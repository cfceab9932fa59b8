import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackRuntime
import DropTrackStore
import DropTrackTesting
import Foundation
import Synchronization
import Testing

let deliveryStart = #"""
    {"activityId":"order-9","userId":"u1","attributesType":"DeliveryAttributes","attributes":{"orderId":"A-9"},
     "event":{"type":"delivery.step","data":{"step":"placed","courierName":"Sam"}},
     "alert":{"title":"Order placed","body":"Sam is on it"},"idempotencyKey":"start-order-9"}
    """#

@Suite("The HTTP API: keys, tenants, bad input, events, limits")
struct APITests {
    @Test("no key or a wrong key is 401; another app's key sees and changes nothing; ops endpoints need no key")
    func authenticationAndTenants() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let token = APNsHarness.randomToken()
        let registered = try server.registerPushToStart(token)
        #expect(registered.status == 201)
        let fingerprint = try #require(registered.body["fingerprint"]?.stringValue)
        #expect(try server.call("POST", "/v1/activities", deliveryStart).status == 201)

        let anonymous = try server.call("GET", "/v1/activities/order-9", key: nil)
        #expect(anonymous.status == 401 && anonymous.errorCode == "unauthorized")
        #expect(anonymous.headers["www-authenticate"] == "Bearer")
        #expect(try server.call("GET", "/v1/activities/order-9", key: "key-app1x").status == 401)
        #expect(try server.call("GET", "/v1/activities/order-9", key: "").status == 401)

        // app2 can neither read, change, end, nor unregister anything of app1's.
        #expect(try server.call("GET", "/v1/activities/order-9", key: "key-app2").status == 404)
        let event = #"{"type":"delivery.step","data":{"step":"picked_up"}}"#
        #expect(try server.call("POST", "/v1/activities/order-9/events", event, key: "key-app2").status == 404)
        #expect(
            try server.call("PATCH", "/v1/activities/order-9", #"{"contentState":{"status":"x"}}"#, key: "key-app2")
                .status == 404)
        #expect(try server.call("POST", "/v1/activities/order-9/end", "{}", key: "key-app2").status == 404)
        #expect(try server.call("DELETE", "/v1/tokens/\(fingerprint)", key: "key-app2").status == 404)
        #expect(
            try server.call(
                "POST", "/v1/tokens/activity",
                #"{"activityId":"order-9","deviceId":"x","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#,
                key: "key-app2"
            ).status == 404)
        // The same activity id is free for app2: ids are per app.
        #expect(try server.call("POST", "/v1/activities", deliveryStart, key: "key-app2").status == 201)
        try server.drain()
        #expect(server.apns.emulator.records(forToken: token).count == 1)
        let mine = try server.call("GET", "/v1/activities/order-9")
        #expect(mine.status == 200 && mine.body["version"]?.numberValue == 1)
        #expect(try server.call("DELETE", "/v1/tokens/\(fingerprint)").status == 204)

        for path in ["/healthz", "/readyz", "/metrics", "/openapi.json"] {
            #expect(try server.call("GET", path, key: nil).status == 200, "\(path)")
        }
        let metrics = try server.call("GET", "/metrics", key: nil).text
        #expect(metrics.contains("droptrack_sends_total"))
        for secret in ["app1", "app2", "order-9", "u1", token, fingerprint, "key-app1"] {
            #expect(!metrics.contains(secret), "metrics carry \(secret)")
        }
        #expect(try server.call("POST", "/healthz", "{}", key: nil).status == 405)
        #expect(try server.call("PUT", "/v1/activities", "{}").status == 405)
        #expect(try server.call("GET", "/v2/anything").status == 404)
    }

    /// One bad request and what must come back.
    struct Refusal: CustomStringConvertible {
        var method: String
        var path: String
        var body: String
        var status: Int
        var code: String
        var field: String?
        var description: String { "\(method) \(path) \(body.prefix(80))" }
    }

    static let hex = String(repeating: "ab", count: 32)
    static let refusals: [Refusal] = {
        var list: [Refusal] = []
        let posts: [(String, String)] = [
            ("/v1/tokens/push-to-start", "push-to-start"), ("/v1/tokens/activity", "activity"),
            ("/v1/tokens/fcm", "fcm"), ("/v1/activities", "start"), ("/v1/activities/order-9/events", "event"),
            ("/v1/activities/order-9/end", "end"), ("/v1/push", "push"),
        ]
        for (path, _) in posts {
            list.append(Refusal(method: "POST", path: path, body: "{\"a\":", status: 400, code: "malformed_json"))
            list.append(Refusal(method: "POST", path: path, body: "[1,2]", status: 400, code: "invalid_body"))
            list.append(Refusal(method: "POST", path: path, body: "", status: 400, code: "invalid_body"))
        }
        list.append(
            Refusal(method: "PATCH", path: "/v1/activities/order-9", body: "{", status: 400, code: "malformed_json"))
        let pts = "/v1/tokens/push-to-start"
        list += [
            Refusal(
                method: "POST", path: pts,
                body:
                    #"{"userId":7,"deviceId":"d","token":"\#(hex)","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
                status: 400, code: "invalid_field", field: "userId"),
            Refusal(
                method: "POST", path: pts,
                body:
                    #"{"deviceId":"d","token":"\#(hex)","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
                status: 400, code: "missing_field", field: "userId"),
            Refusal(
                method: "POST", path: pts,
                body:
                    #"{"userId":"u","deviceId":"d","token":"xyz","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
                status: 400, code: "invalid_field", field: "token"),
            Refusal(
                method: "POST", path: pts,
                body:
                    #"{"userId":"u","deviceId":"d","token":"","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
                status: 400, code: "invalid_field", field: "token"),
            Refusal(
                method: "POST", path: pts,
                body:
                    #"{"userId":"u","deviceId":"d","token":"abc","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
                status: 400, code: "invalid_field", field: "token"),
            Refusal(
                method: "POST", path: pts,
                body:
                    #"{"userId":"u","deviceId":"d","token":"\#(hex)","environment":"staging","attributesType":"DeliveryAttributes"}"#,
                status: 400, code: "invalid_field", field: "environment"),
            Refusal(
                method: "POST", path: pts,
                body:
                    #"{"userId":"u","deviceId":"d","token":"\#(hex)","environment":"sandbox","attributesType":"PizzaAttributes"}"#,
                status: 422, code: "unknown_attributes_type", field: "attributesType"),
            Refusal(
                method: "POST", path: pts,
                body:
                    #"{"userId":"u","deviceId":"d","token":"\#(hex)","environment":"sandbox","attributesType":"DeliveryAttributes","enviroment":"x"}"#,
                status: 400, code: "invalid_field", field: "enviroment"),
            Refusal(
                method: "POST", path: "/v1/tokens/activity",
                body: #"{"activityId":"nope","deviceId":"d","token":"\#(hex)","environment":"sandbox"}"#, status: 404,
                code: "not_found", field: "activityId"),
            Refusal(
                method: "POST", path: "/v1/tokens/fcm", body: #"{"userId":"u","deviceId":"d","token":"has space"}"#,
                status: 400, code: "invalid_field", field: "token"),
            Refusal(
                method: "POST", path: "/v1/tokens/fcm", body: #"{"userId":"u","deviceId":"d","token":""}"#,
                status: 400, code: "invalid_field", field: "token"),
            Refusal(
                method: "POST", path: "/v1/tokens/activity",
                body: #"{"activityId":"order-9","deviceId":"d","token":"\#(hex)","environment":"prod"}"#, status: 400,
                code: "invalid_field", field: "environment"),
            Refusal(
                method: "POST", path: "/v1/tokens/activity",
                body: #"{"activityId":"order-9","deviceId":"d","token":"","environment":"sandbox"}"#, status: 400,
                code: "invalid_field", field: "token"),
            Refusal(
                method: "POST", path: "/v1/tokens/channel-subscription",
                body: #"{"activityId":"order-9","deviceId":"d"}"#,
                status: 409, code: "not_broadcast", field: "activityId"),
            Refusal(
                method: "POST", path: "/v1/tokens/channel-subscription", body: #"{"activityId":"order-9"}"#,
                status: 400, code: "missing_field", field: "deviceId"),
            Refusal(
                method: "POST", path: "/v1/activities",
                body:
                    #"{"activityId":"s1","userId":"u","attributesType":"PizzaAttributes","attributes":{},"contentState":{},"alert":{"title":"t"},"idempotencyKey":"k"}"#,
                status: 422, code: "unknown_attributes_type", field: "attributesType"),
            Refusal(
                method: "PATCH", path: "/v1/activities/order-9",
                body:
                    #"{"contentState":{"status":"\#(String(repeating: "x", count: 5000))","progress":0.5,"eta":817000000,"stopsRemaining":1,"courierName":"S","riderReassigned":false}}"#,
                status: 422, code: "payload_too_large", field: "contentState"),
            Refusal(
                method: "POST", path: "/v1/activities/order-9/end",
                body:
                    #"{"contentState":{"status":"\#(String(repeating: "x", count: 5000))","progress":1,"eta":817000000,"stopsRemaining":0,"courierName":"S","riderReassigned":false}}"#,
                status: 422, code: "payload_too_large", field: "contentState"),
            Refusal(
                method: "POST", path: "/v1/activities",
                body:
                    #"{"activityId":"s1","userId":"u","attributesType":"DeliveryAttributes","attributes":{"orderId":"1"},"event":{"type":"delivery.step","data":{"step":"placed"}},"idempotencyKey":"k"}"#,
                status: 400, code: "missing_field", field: "alert"),
            Refusal(
                method: "POST", path: "/v1/activities",
                body:
                    #"{"activityId":"s1","userId":"u","attributesType":"ScoreAttributes","attributes":{},"contentState":{"home":"two","away":0,"period":"first"},"alert":{"title":"t"},"idempotencyKey":"k"}"#,
                status: 422, code: "invalid_content", field: "contentState.home"),
            Refusal(
                method: "POST", path: "/v1/activities",
                body:
                    #"{"activityId":"s1","userId":"u","attributesType":"ScoreAttributes","attributes":{},"contentState":{"home":1,"away":0,"period":"first","extra":1},"alert":{"title":"t"},"idempotencyKey":"k"}"#,
                status: 422, code: "invalid_content", field: "contentState.extra"),
            Refusal(
                method: "POST", path: "/v1/activities",
                body:
                    #"{"activityId":"s1","userId":"u","attributesType":"DeliveryAttributes","attributes":{"orderId":"\#(String(repeating: "x", count: 5000))"},"event":{"type":"delivery.step","data":{"step":1}},"alert":{"title":"t"},"idempotencyKey":"k"}"#,
                status: 422, code: "payload_too_large", field: "contentState"),
            Refusal(
                method: "POST", path: "/v1/activities",
                body:
                    #"{"activityId":"s1","userId":"u","attributesType":"DeliveryAttributes","attributes":{"orderId":"1"},"event":{"type":"delivery.step","data":{"step":1}},"alert":{"title":"t"},"idempotencyKey":"k","staleDate":1700000000}"#,
                status: 422, code: "invalid_content", field: "staleDate"),
            Refusal(
                method: "POST", path: "/v1/activities",
                body:
                    #"{"activityId":"s1","userId":"u","attributesType":"DeliveryAttributes","attributes":{"orderId":"1"},"event":{"type":"delivery.step","data":{"step":1}},"alert":{"title":"t"},"idempotencyKey":"k","staleDate":1796000000000}"#,
                status: 400, code: "invalid_field", field: "staleDate"),
            Refusal(
                method: "POST", path: "/v1/activities/nope/events",
                body: #"{"type":"delivery.step","data":{"step":2}}"#,
                status: 404, code: "not_found", field: "activityId"),
            Refusal(
                method: "POST", path: "/v1/activities/order-9/events", body: #"{"type":"delivery.teleport"}"#,
                status: 422, code: "unknown_event_type", field: "type"),
            Refusal(
                method: "POST", path: "/v1/activities/order-9/events",
                body: #"{"type":"delivery.step","data":{"step":"lost"}}"#,
                status: 422, code: "invalid_content", field: "data.step"),
            Refusal(
                method: "PATCH", path: "/v1/activities/order-9",
                body:
                    #"{"contentState":{"status":"x","progress":"half","eta":817000000,"stopsRemaining":1,"courierName":"S","riderReassigned":false}}"#,
                status: 422, code: "invalid_content", field: "contentState.progress"),
            Refusal(
                method: "PATCH", path: "/v1/activities/order-9", body: #"{"contentState":{},"priority":7}"#,
                status: 400,
                code: "invalid_field", field: "priority"),
            Refusal(
                method: "POST", path: "/v1/activities/order-9/end", body: #"{"dismissal":"later"}"#, status: 400,
                code: "invalid_field", field: "dismissal"),
            Refusal(
                method: "GET", path: "/v1/activities/order-9?timelineLimit=-1", body: "", status: 400,
                code: "invalid_field", field: "timelineLimit"),
            Refusal(
                method: "POST", path: "/v1/push", body: #"{"provider":"apns","token":"zz","payload":{"aps":{}}}"#,
                status: 400, code: "invalid_field", field: "token"),
            Refusal(
                method: "POST", path: "/v1/push", body: #"{"provider":"sms","token":"zz"}"#, status: 400,
                code: "invalid_field", field: "provider"),
            Refusal(
                method: "POST", path: "/v1/push", body: #"{"provider":"fcm","token":"t","data":{"n":1}}"#, status: 400,
                code: "invalid_field", field: "data.n"),
            Refusal(
                method: "POST", path: "/v1/push", body: #"{"provider":"fcm","token":"t","data":{"from":"x"}}"#,
                status: 422, code: "invalid_push", field: "data.from"),
        ]
        return list
    }()

    @Test("every endpoint refuses bad input with a 4xx naming the field, and writes nothing")
    func badInput() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        #expect(try server.call("POST", "/v1/activities", deliveryStart).status == 201)
        try server.drain()
        let before = try server.call("GET", "/v1/activities/order-9")
        for refusal in Self.refusals {
            let answer = try server.call(
                refusal.method, refusal.path, refusal.body.isEmpty && refusal.method == "GET" ? nil : refusal.body)
            #expect(answer.status == refusal.status, "\(refusal): \(answer.text)")
            #expect(answer.errorCode == refusal.code, "\(refusal): \(answer.text)")
            if let field = refusal.field { #expect(answer.errorField == field, "\(refusal): \(answer.text)") }
            let message = answer.body["error"]?["message"]?.stringValue ?? ""
            #expect(message.count > 10, "\(refusal)")
        }
        let big = Array(repeating: UInt8(ascii: " "), count: server.configuration.maxBodyBytes + 1)
        let tooLarge = try server.call("POST", "/v1/activities", raw: big)
        #expect(tooLarge.status == 413 && tooLarge.errorCode == "body_too_large")
        let wrongType = try server.call(
            "POST", "/v1/activities", deliveryStart, headers: ["Content-Type": "text/plain"])
        #expect(wrongType.status == 415 && wrongType.errorCode == "unsupported_media_type")
        // Nothing half-written: the activity is as it was, and no token or activity was added.
        let after = try server.call("GET", "/v1/activities/order-9")
        #expect(after.body["version"] == before.body["version"])
        #expect(after.body["contentState"] == before.body["contentState"])
        #expect(try server.store.transaction { try $0.activity(app: "app1", id: "s1") } == nil)
        #expect(try server.store.transaction { try $0.tokens(app: "app1", deviceIds: ["d"]) }.isEmpty)
        #expect(
            !server.logs.entries.contains { $0.level >= .error }, "\(server.logs.entries.filter { $0.level >= .error })"
        )
    }

    @Test("the event stream carries every send of this app, by fingerprint only, with a heartbeat")
    func eventStream() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let token = APNsHarness.randomToken()
        _ = try server.registerPushToStart(token)
        func subscribe(_ key: String) throws -> RawConnection {
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\n\r\n")
            let head = try connection.readHead()
            #expect(head.status == 200 && head.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            return connection
        }
        let mine = try subscribe("key-app1")
        let theirs = try subscribe("key-app2")
        #expect(eventually { server.events.count(app: "app1") == 1 && server.events.count(app: "app2") == 1 })
        #expect(try server.call("POST", "/v1/activities", deliveryStart).status == 201)
        try server.drain()
        var text = ""
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, !(text.contains("event: send") && text.contains(": ping")) {
            if let chunk = try mine.readChunk(timeout: .seconds(2)) { text += String(decoding: chunk, as: UTF8.self) }
        }
        let events = parseEvents(text)
        #expect(events.first?.event == "ready")
        let send = try #require(events.first { $0.event == "send" })
        let payload = try JSONValue.parse(send.data)
        #expect(payload["activityId"]?.stringValue == "order-9")
        #expect(payload["destination"]?.stringValue == Fingerprint(of: token).value)
        #expect(payload["status"]?.numberValue == 200 && payload["event"]?.stringValue == "start")
        #expect(text.contains(": ping"), "a heartbeat comment arrives")
        #expect(!text.contains(token))
        var other = ""
        let otherDeadline = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < otherDeadline, let chunk = try theirs.readChunk(timeout: .seconds(2)) {
            other += String(decoding: chunk, as: UTF8.self)
        }
        #expect(other.contains(": ping"))
        #expect(!other.contains("event: send"), "app2's stream shows nothing of app1")
    }

    @Test("the diagnosis names a missing update token, a wrong environment, a superseded token and budget use")
    func diagnosis() throws {
        let clock = ManualWallClock(unixSeconds: Int64(Date().timeIntervalSince1970))
        let server = try ServerHarness(clock: clock) { $0.priority10PerHour = 1 }
        defer { server.stop() }
        let start = APNsHarness.randomToken()
        _ = try server.call(
            "POST", "/v1/tokens/push-to-start",
            #"{"userId":"u1","deviceId":"d1","token":"\#(start)","environment":"sandbox","attributesType":"DeliveryAttributes"}"#
        )
        #expect(try server.call("POST", "/v1/activities", deliveryStart).status == 201)
        try server.drain()
        let early = try server.call("GET", "/v1/activities/order-9/diagnosis")
        #expect(early.status == 200)
        let traps = { (answer: APIAnswer) in
            Set(answer.body["findings"]?.arrayValue?.compactMap { $0["trap"]?.stringValue } ?? [])
        }
        #expect(!traps(early).contains("DT-041"), "within the grace period the app may still register")
        clock.advance(by: 61)
        #expect(traps(try server.call("GET", "/v1/activities/order-9/diagnosis")).contains("DT-041"))
        for (device, environment) in [("d1", "production"), ("d1", "production"), ("d2", "sandbox")] {
            _ = try server.call(
                "POST", "/v1/tokens/activity",
                #"{"activityId":"order-9","deviceId":"\#(device)","token":"\#(APNsHarness.randomToken())","environment":"\#(environment)"}"#
            )
        }
        let later = try server.call("GET", "/v1/activities/order-9/diagnosis")
        #expect(traps(later).isSuperset(of: ["DT-059", "DT-038", "DT-050"]), "\(traps(later))")
        #expect(!traps(later).contains("DT-041"))
        let devices = later.body["devices"]?.arrayValue ?? []
        #expect(
            devices.contains {
                $0["fingerprint"]?.stringValue == Fingerprint(of: start).value && $0["upToDate"] == .bool(true)
            })
        #expect(later.body["deviceDrops"]?.arrayValue?.isEmpty == true)
        #expect(try server.call("GET", "/v1/activities/nope/diagnosis").status == 404)
        #expect(try server.call("GET", "/v1/activities/order-9/diagnosis", key: "key-app2").status == 404)
    }

    @Test(
        "device facts reported at registration reach the diagnosis and the doctor: each device's findings, updated on re-registration"
    )
    func deviceFacts() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let start = APNsHarness.randomToken()
        #expect(
            try server.call(
                "POST", "/v1/tokens/push-to-start",
                #"{"userId":"u1","deviceId":"old-iphone","token":"\#(start)","environment":"sandbox","attributesType":"DeliveryAttributes","device":{"osVersion":"17.1"}}"#
            ).status == 201)
        #expect(try server.call("POST", "/v1/activities", deliveryStart).status == 201)
        let update = APNsHarness.randomToken()
        let register = { (facts: String) in
            try server.call(
                "POST", "/v1/tokens/activity",
                #"{"activityId":"order-9","deviceId":"d1","token":"\#(update)","environment":"sandbox","device":\#(facts)}"#
            )
        }
        #expect(try register(#"{"osVersion":"18.2","areActivitiesEnabled":false,"appBuild":"412"}"#).status == 201)
        let android = "fcm-" + APNsHarness.randomToken()
        #expect(
            try server.call(
                "POST", "/v1/tokens/fcm",
                #"{"userId":"u1","deviceId":"pixel","token":"\#(android)","device":{"osVersion":"16","canPostPromoted":false}}"#
            ).status == 201)
        func findings() throws -> [JSONValue] {
            try server.call("GET", "/v1/activities/order-9/diagnosis").body["findings"]?.arrayValue ?? []
        }
        let first = try findings()
        func about(_ token: String, _ found: [JSONValue]) -> [JSONValue] {
            found.filter { $0["device"]?.stringValue == Fingerprint(of: token).value }
        }
        #expect(about(update, first).contains { $0["trap"] == .string("DT-048") }, "\(first)")
        #expect(about(android, first).contains { $0["trap"] == .string("DT-107") }, "\(first)")
        #expect(
            about(start, first).contains {
                $0["message"]?.stringValue?.contains("push-to-start needs iOS 17.2") == true
            },
            "\(first)")
        // The user turned Live Activities back on; the app registers the same token with the news.
        #expect(try register(#"{"osVersion":"18.2","areActivitiesEnabled":true}"#).status == 200)
        #expect(!about(update, try findings()).contains { $0["trap"] == .string("DT-048") })
        #expect(try register(#"{"osVersion":"18.2","areActivitiesEnabled":false}"#).status == 200)
        // The doctor fills the device from the registry when the pasted push names a known token.
        let curl = #"""
            curl -X POST https://api.sandbox.push.apple.com/3/device/\#(update) -H 'apns-topic: \#(APNsHarness.bundleID).push-type.liveactivity' -H 'apns-push-type: liveactivity' -H 'apns-priority: 5' -d '{"aps":{"event":"update","timestamp":1796040000,"content-state":{"status":"x"}}}'
            """#
        let doctor = try server.call(
            "POST", "/v1/doctor",
            String(
                decoding: JSONValue.object(["request": .string(curl), "activityId": .string("order-9")]).serialized(),
                as: UTF8.self))
        #expect(doctor.status == 200, "\(doctor.text)")
        #expect(
            doctor.body["findings"]?.arrayValue?.contains { $0["id"] == .string("DT-048") } == true, "\(doctor.text)")
        // Bad facts are refused with the key path and a hint, and nothing is saved.
        let typo = try register(#"{"areActivitiesEnable":true}"#)
        #expect(typo.status == 400 && typo.body["error"]?["field"] == .string("device.areActivitiesEnable"))
        #expect(typo.text.contains("areActivitiesEnabled"), "names the key it meant")
        let wrongType = try register(#"{"osVersion":18}"#)
        #expect(wrongType.status == 400 && wrongType.body["error"]?["field"] == .string("device.osVersion"))
        #expect(try register(#"[]"#).body["error"]?["field"] == .string("device"))
        #expect(try register(#"{"activeActivities":-1}"#).body["error"]?["field"] == .string("device.activeActivities"))
        #expect(
            about(update, try findings()).contains { $0["trap"] == .string("DT-048") },
            "the refused facts changed nothing")
        let long = try register(#"{"osVersion":"\#(String(repeating: "1", count: 101))"}"#)
        #expect(long.status == 400 && long.body["error"]?["field"] == .string("device.osVersion"))
        // Facts describe the device: reported with another of its tokens, they reach this one too.
        #expect(
            try server.call(
                "POST", "/v1/tokens/push-to-start",
                #"{"userId":"u1","deviceId":"d1","token":"\#(APNsHarness.randomToken())","environment":"sandbox","attributesType":"DeliveryAttributes","device":{"osVersion":"18.2","areActivitiesEnabled":true}}"#
            ).status == 201)
        let stored = { () throws -> TokenRecord? in
            try server.store.transaction { try $0.token(app: "app1", fingerprint: Fingerprint(of: update)) }
        }
        #expect(try stored()?.device?["areActivitiesEnabled"] == .bool(true))
        #expect(!about(update, try findings()).contains { $0["trap"] == .string("DT-048") })
        // A token unregistered and registered again without facts keeps what its device reported.
        #expect(try server.call("DELETE", "/v1/tokens/\(Fingerprint(of: update).value)").status < 300)
        let again = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-9","deviceId":"d1","token":"\#(update)","environment":"sandbox"}"#)
        #expect(again.status == 201)
        #expect(try stored()?.device?["osVersion"] == .string("18.2"))
        let described = try server.call("GET", "/v1/activities/order-9").body["devices"]?.arrayValue ?? []
        #expect(
            described.first { $0["fingerprint"]?.stringValue == Fingerprint(of: update).value }?["device"]?["osVersion"]
                == .string("18.2"), "the activity's devices show their facts")
    }

    @Test("POST /v1/doctor names the traps of a pasted curl line, and fills the context from an activity")
    func doctorEndpoint() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let token = APNsHarness.randomToken()
        let curl = #"""
            curl -X POST https://api.sandbox.push.apple.com/3/device/\#(token) -H 'apns-topic: com.droptrack.demo' -H 'apns-push-type: liveactivity' -H 'apns-priority: 10' -d '{"aps":{"event":"update","timestamp":1796040000,"content-state":{"status":"x"}}}'
            """#
        let answer = try server.call(
            "POST", "/v1/doctor",
            String(decoding: JSONValue.object(["request": .string(curl)]).serialized(), as: UTF8.self))
        #expect(answer.status == 200, "\(answer.text)")
        let ids = Set(answer.body["findings"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
        #expect(ids.contains("DT-001"), "a topic without the suffix: \(ids)")
        #expect((answer.body["errors"]?.numberValue ?? 0) >= 1)
        #expect(!answer.text.contains(token), "the token appears only as a fingerprint")

        #expect(try server.call("POST", "/v1/activities", deliveryStart).status == 201)
        let update = APNsHarness.randomToken()
        _ = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-9","deviceId":"d1","token":"\#(update)","environment":"sandbox"}"#)
        try server.drain()
        _ = try server.call("POST", "/v1/activities/order-9/events", #"{"type":"delivery.step","data":{"step":2}}"#)
        try server.drain()
        let stale =
            #"{"activityId":"order-9","apns":{"path":"/3/device/\#(update)","headers":{"apns-topic":"com.droptrack.demo.push-type.liveactivity","apns-push-type":"liveactivity"},"payload":{"aps":{"event":"update","timestamp":1000000001,"content-state":{}}}}}"#
        let filled = try server.call("POST", "/v1/doctor", stale)
        #expect(filled.status == 200, "\(filled.text)")
        let filledIDs = Set(filled.body["findings"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
        #expect(
            filledIDs.contains("DT-020"), "older than the activity's last timestamp, known from the store: \(filledIDs)"
        )
        #expect(
            !filledIDs.contains("DT-045"), "a token registered for its activity needs no correlation id: \(filledIDs)")

        #expect(try server.call("POST", "/v1/doctor", #"{"request":"x","fcm":{"message":{}}}"#).status == 400)
        #expect(try server.call("POST", "/v1/doctor", #"{"request":null}"#).status == 400)
        #expect(try server.call("POST", "/v1/doctor", #"{"fcm":{"message":{}},"activityId":"nope"}"#).status == 404)
        let badContext = try server.call("POST", "/v1/doctor", #"{"fcm":{"message":{}},"context":{"tokne":{}}}"#)
        #expect(badContext.status == 422 && badContext.errorField?.hasPrefix("context") == true, "\(badContext.text)")
    }

    @Test("requests beyond the per-key rate get 429 with Retry-After; other keys are unaffected")
    func rateLimit() throws {
        let server = try ServerHarness { $0.requestsPerSecondPerKey = 2 }
        defer { server.stop() }
        var statuses: [Int] = []
        for _ in 0..<25 { statuses.append(try server.call("GET", "/v1/activities/none").status) }
        #expect(statuses.prefix(4).allSatisfy { $0 == 404 })
        #expect(statuses.contains(429))
        let limited = try server.call("GET", "/v1/activities/none")
        #expect(limited.status == 429 && limited.errorCode == "rate_limited")
        #expect(Int(limited.headers["retry-after"] ?? "") ?? 0 >= 1)
        #expect(try server.call("GET", "/v1/activities/none", key: "key-app2").status == 404)
    }

    @Test("request ids are echoed and logged; logs hold no token, no API key and no body")
    func requestIDsAndLogs() throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let token = APNsHarness.randomToken()
        let answer = try server.registerPushToStart(token, headers: ["X-Request-Id": "trace-123"])
        #expect(answer.headers["x-request-id"] == "trace-123")
        let generated = try server.call("GET", "/v1/activities/none")
        #expect((generated.headers["x-request-id"] ?? "").count > 4)
        let unsafe = try server.call("GET", "/v1/activities/none", headers: ["X-Request-Id": "a b\"c"])
        #expect(unsafe.headers["x-request-id"] != "a b\"c")
        #expect(try server.call("POST", "/v1/activities", deliveryStart).status == 201)
        _ = try server.call(
            "POST", "/v1/push",
            #"{"provider":"apns","token":"\#(token)","payload":{"aps":{"event":"update","timestamp":1796000000,"content-state":{}}}}"#
        )
        try server.drain()
        let lines = server.logs.entries
        #expect(lines.contains { $0.metadata["requestId"] == "trace-123" && $0.message == "http.request" })
        let everything = lines.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        #expect(!everything.contains(token))
        #expect(!everything.contains("key-app1"))
        #expect(!everything.contains("Sam is on it"))
    }

    @Test("shutdown stops taking requests, lets sends in flight finish, and leaves nothing claimed")
    func gracefulShutdown() throws {
        let server = try ServerHarness()
        server.apns.emulator.setFaults([APNsFault(kind: .delay, delayMilliseconds: 400)])
        for index in 0..<20 {
            _ = try server.call(
                "POST", "/v1/tokens/push-to-start",
                #"{"userId":"u1","deviceId":"d\#(index)","token":"\#(APNsHarness.randomToken())","environment":"sandbox","attributesType":"DeliveryAttributes"}"#
            )
        }
        #expect(try server.call("POST", "/v1/activities", deliveryStart).status == 201)
        #expect(eventually { server.dispatcher.inFlight > 0 })
        let left = server.server.shutdown(timeout: .seconds(10))
        #expect(left == 0)
        #expect(server.apns.emulator.records(after: 0).filter { $0.status == 200 }.count == 20)
        #expect(try server.store.transaction { try $0.outboxStats().depth } == 0)
        #expect(throws: (any Error).self) { try server.call("GET", "/healthz", key: nil) }
        server.apns.stop()
        server.fcm.stop()
    }
}
