import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// A compact JWS as a backend would mint it; every part can be bent to make a bad one.
func deviceCredential(
    _ key: PrivateKey, kid: String, sub: String = "uA", aud: String = "app1", exp: Int64,
    extraClaims: [String: Int64] = [:], textClaims: [String: String] = [:],
    alg: String = "ES256"
) throws -> String {
    var claims: [String: JSONValue] = ["sub": .string(sub), "aud": .string(aud), "exp": .number(Double(exp))]
    for (name, value) in extraClaims { claims[name] = .number(Double(value)) }
    for (name, value) in textClaims { claims[name] = .string(value) }
    let header = JSONValue.object(["alg": .string(alg), "typ": .string("JWT"), "kid": .string(kid)])
    return try JWS.sign(
        header: Data(header.serialized()), claims: Data(JSONValue.object(claims).serialized()), with: key)
}

func start(_ activity: String, user: String) -> String {
    deliveryStart.replacingOccurrences(of: "order-9", with: activity).replacingOccurrences(
        of: #""userId":"u1""#, with: #""userId":"\#(user)""#)
}

extension ServerHarness {
    /// A valid credential for a user of app1, signed by the backend's key.
    func credential(user: String = "uA", app: String = "app1", lifetime: Int64 = 3600) throws -> String {
        try deviceCredential(
            deviceKeys[app]!, kid: "\(app)-backend", sub: user, aud: app, exp: clock.unixSeconds() + lifetime)
    }
}

@Suite("Device credentials: what a phone may call, for its own user only")
struct DeviceCredentialTests {
    @Test("a credential registers its user's tokens and reaches nothing of another user, route or app")
    func scopedToItsUser() throws {
        let server = try ServerHarness(deviceKeys: true)
        defer { server.stop() }
        #expect(try server.call("POST", "/v1/activities", start("order-a", user: "uA")).status == 201)
        #expect(try server.call("POST", "/v1/activities", start("order-b", user: "uB")).status == 201)
        let bToken = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-b","deviceId":"dB","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#
        )
        let bFingerprint = try #require(bToken.body["fingerprint"]?.stringValue)
        let credential = try server.credential()

        let pushToStart = try server.call(
            "POST", "/v1/tokens/push-to-start",
            #"{"deviceId":"dA","token":"\#(APNsHarness.randomToken())","environment":"sandbox","attributesType":"DeliveryAttributes"}"#,
            key: credential)
        #expect(pushToStart.status == 201, "\(pushToStart.text)")
        let stored = try server.store.transaction {
            try $0.token(
                app: "app1", fingerprint: Fingerprint(validating: pushToStart.body["fingerprint"]?.stringValue ?? ""))
        }
        #expect(stored?.userId == "uA")
        let activityToken = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-a","deviceId":"dA","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#,
            key: credential)
        #expect(activityToken.status == 201, "\(activityToken.text)")

        let otherUser = try server.call(
            "POST", "/v1/tokens/fcm", #"{"userId":"uB","deviceId":"dA","token":"fcm-token-1"}"#, key: credential)
        #expect(otherUser.status == 403 && otherUser.errorCode == "other_user")
        let otherActivity = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-b","deviceId":"dA","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#,
            key: credential)
        let missing = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-zz","deviceId":"dA","token":"\#(APNsHarness.randomToken())","environment":"sandbox"}"#,
            key: credential)
        #expect(otherActivity.status == 404 && otherActivity.errorCode == missing.errorCode)
        #expect(try server.call("DELETE", "/v1/tokens/\(bFingerprint)", key: credential).status == 404)
        #expect(try server.call("GET", "/v1/activities/order-b", key: credential).status == 404)
        #expect(try server.call("GET", "/v1/activities/order-a", key: credential).status == 200)
        for (method, path) in [("POST", "/v1/activities"), ("POST", "/v1/push"), ("POST", "/v1/device-credentials")] {
            let refused = try server.call(method, path, "{}", key: credential)
            #expect(refused.status == 403 && refused.errorCode == "device_not_allowed", "\(path)")
        }
        // app1's key cannot speak for app2.
        let forApp2 = try deviceCredential(
            server.deviceKeys["app1"]!, kid: "app1-backend", aud: "app2", exp: server.clock.unixSeconds() + 60)
        let wrongApp = try server.call("GET", "/v1/devices/dA/activities", key: forApp2)
        #expect(wrongApp.status == 401 && wrongApp.errorCode == "credential_wrong_audience")

        let held = try server.call("GET", "/v1/devices/dA/activities", key: credential)
        #expect(held.status == 200)
        #expect(held.body["activities"]?.arrayValue?.compactMap { $0["activityId"]?.stringValue } == ["order-a"])
        #expect(try server.call("GET", "/v1/devices/dB/activities", key: credential).body["activities"] == .array([]))
        #expect(try server.call("GET", "/v1/devices/dB/activities").body["activities"]?.arrayValue?.count == 1)
        let own = try #require(activityToken.body["fingerprint"]?.stringValue)
        #expect(try server.call("DELETE", "/v1/tokens/\(own)", key: credential).status == 204)

        let logged = server.logs.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        #expect(!logged.contains(credential) && !logged.contains(String(credential.split(separator: ".")[2])))
    }

    @Test("each bad credential is 401 invalid_token with its own code")
    func refusals() throws {
        let clock = ManualWallClock(unixSeconds: Int64(Date().timeIntervalSince1970))
        let server = try ServerHarness(clock: clock, deviceKeys: true)
        defer { server.stop() }
        let key = server.deviceKeys["app1"]!
        let now = clock.unixSeconds()
        let stranger = try PrivateKey.generate(.es256)
        let valid = try deviceCredential(key, kid: "app1-backend", exp: now + 60)
        let pieces = valid.split(separator: ".").map(String.init)
        func unsigned(alg: String) -> String {
            let header = Base64URL.encode(Data(#"{"alg":"\#(alg)","kid":"app1-backend"}"#.utf8))
            return header + "." + pieces[1] + "."
        }
        let cases: [(String, String)] = [
            (try deviceCredential(key, kid: "app1-backend", exp: now - 10), "credential_expired"),
            (
                try deviceCredential(key, kid: "app1-backend", exp: now + 600, extraClaims: ["nbf": now + 300]),
                "credential_not_yet_valid"
            ),
            (
                try deviceCredential(key, kid: "app1-backend", exp: now + 600, extraClaims: ["iat": now + 300]),
                "credential_not_yet_valid"
            ),
            (try deviceCredential(key, kid: "app1-backend", exp: now + 8 * 86400), "credential_too_long"),
            (try deviceCredential(key, kid: "app1-backend", aud: "app9", exp: now + 60), "credential_wrong_audience"),
            (try deviceCredential(stranger, kid: "app1-backend", exp: now + 60), "credential_bad_signature"),
            (unsigned(alg: "none"), "credential_unsigned"),
            (pieces[0] + "." + pieces[1] + ".", "credential_unsigned"),
            (try deviceCredential(key, kid: "nope", exp: now + 60), "credential_unknown_key"),
            (try deviceCredential(key, kid: "app1-backend", exp: now + 60, alg: "HS256"), "credential_algorithm"),
            ("abc.def.ghi", "credential_malformed"),
            // `sub` is the user id: one the id rule refuses could never be the user's.
            (try deviceCredential(key, kid: "app1-backend", sub: "a/b", exp: now + 60), "credential_malformed"),
        ]
        #expect(try server.call("GET", "/v1/devices/d1/activities", key: valid).status == 200)
        for (credential, code) in cases {
            let answer = try server.call("GET", "/v1/devices/d1/activities", key: credential)
            #expect(answer.status == 401 && answer.errorCode == code, "\(code): \(answer.text)")
            #expect(answer.headers["www-authenticate"] == #"Bearer error="invalid_token""#)
            #expect(!answer.text.contains(credential))
        }
        let expired = try server.call("GET", "/v1/devices/d1/activities", key: cases[0].0)
        #expect(expired.body["error"]?["message"]?.stringValue?.contains("fresh one") == true)
    }

    @Test("device requests are limited per user: a busy user gets 429 while another still gets 200")
    func perUserRateLimit() throws {
        let clock = ManualWallClock(unixSeconds: Int64(Date().timeIntervalSince1970))
        let server = try ServerHarness(clock: clock, deviceKeys: true) { $0.requestsPerSecondPerUser = 1 }
        defer { server.stop() }
        let busy = try server.credential(user: "uA")
        let statuses = try (0..<5).map { _ in try server.call("GET", "/v1/devices/d/activities", key: busy).status }
        #expect(statuses == [200, 200, 200, 200, 429])
        #expect(try server.call("GET", "/v1/devices/d/activities", key: server.credential(user: "uB")).status == 200)
        #expect(try server.call("GET", "/v1/devices/d/activities").status == 200)
    }

    @Test("POST /v1/device-credentials mints a working credential, and is 409 without a signing key")
    func minting() throws {
        let server = try ServerHarness(deviceKeys: true)
        defer { server.stop() }
        let minted = try server.call("POST", "/v1/device-credentials", #"{"userId":"u-42","ttlSeconds":600}"#)
        #expect(minted.status == 201 && minted.body["userId"]?.stringValue == "u-42")
        #expect(minted.body["expiresAt"]?.numberValue == Double(server.clock.unixSeconds() + 600))
        let credential = try #require(minted.body["credential"]?.stringValue)
        #expect(try server.call("GET", "/v1/devices/d/activities", key: credential).status == 200)
        let tooLong = try server.call("POST", "/v1/device-credentials", #"{"userId":"u","ttlSeconds":604801}"#)
        #expect(tooLong.status == 400 && tooLong.errorField == "ttlSeconds")
        let noKey = try server.call("POST", "/v1/device-credentials", #"{"userId":"u-42"}"#, key: "key-app2")
        #expect(noKey.status == 409 && noKey.errorCode == "no_device_signing_key")
        #expect(noKey.body["error"]?["message"]?.stringValue?.contains("device-key rotate") == true)
    }

    @Test("a dismissed report invalidates the device's update token, so the next update does not go to it")
    func lifecycleDismissed() throws {
        let server = try ServerHarness(deviceKeys: true)
        defer { server.stop() }
        #expect(try server.call("POST", "/v1/activities", start("order-a", user: "uA")).status == 201)
        let credential = try server.credential()
        let token = APNsHarness.randomToken()
        let registered = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-a","deviceId":"dA","token":"\#(token)","environment":"sandbox"}"#, key: credential)
        #expect(registered.status == 201)
        let update = #"{"type":"delivery.step","data":{"step":"picked_up"}}"#
        #expect(try server.call("POST", "/v1/activities/order-a/events", update).status == 200)
        try server.drain()
        let before = server.apns.emulator.records(forToken: token).count
        #expect(before >= 1)

        let report = try server.call(
            "POST", "/v1/activities/order-a/lifecycle", #"{"deviceId":"dA","state":"dismissed","reason":"swiped"}"#,
            key: credential)
        #expect(report.status == 200 && report.body["tokensInvalidated"]?.numberValue == 1, "\(report.text)")
        #expect(report.body["state"]?.stringValue == "dismissed")
        let held = try server.call("GET", "/v1/devices/dA/activities", key: credential)
        #expect(held.body["activities"]?.arrayValue?.first?["tokenValid"] == .bool(false))
        let stored = try server.store.transaction {
            try $0.token(
                app: "app1", fingerprint: Fingerprint(validating: registered.body["fingerprint"]?.stringValue ?? ""))
        }
        #expect(stored?.invalidReason == .deviceDismissed)

        let next = #"{"type":"delivery.step","data":{"step":"nearby"}}"#
        #expect(try server.call("POST", "/v1/activities/order-a/events", next).status == 200)
        try server.drain()
        #expect(server.apns.emulator.records(forToken: token).count == before)
        let timeline = try server.call("GET", "/v1/activities/order-a").body["timeline"]?.arrayValue ?? []
        #expect(timeline.contains { $0["event"]?.stringValue == "device_lifecycle" })
        let otherUser = try server.call(
            "POST", "/v1/activities/order-a/lifecycle", #"{"deviceId":"dB","state":"lost"}"#,
            key: server.credential(user: "uB"))
        #expect(otherUser.status == 404)
        let badState = try server.call(
            "POST", "/v1/activities/order-a/lifecycle", #"{"deviceId":"dA","state":"gone"}"#)
        #expect(badState.status == 400 && badState.errorField == "state")
    }
}
