import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackEmulators
import DropTrackHTTP2
import DropTrackModel
import DropTrackProviders
import DropTrackTesting
import DropTrackWire
import Foundation
import Synchronization
import Testing

@Suite("APNs client against the emulator over TLS h2")
struct APNsEndToEndTests {
    let at = Date()

    @Test("push-to-start, updates and end are accepted, and the emulator holds the final state")
    func lifecycle() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        let startToken = APNsHarness.randomToken()
        let updateToken = APNsHarness.randomToken(bytes: 80)
        harness.emulator.registerToken(startToken, environment: .sandbox, attributesType: DeliveryAttributes.typeName)
        harness.emulator.registerToken(updateToken, environment: .sandbox, attributesType: DeliveryAttributes.typeName)

        let start = try await client.startLiveActivity(
            pushToStartToken: DeviceToken(startToken), attributes: DeliveryAttributes(orderId: "A-1"),
            contentState: DeliveryStep.placed.contentState(courierName: "Sam", riderReassigned: false, at: at),
            alert: LiveActivityAlert(title: "Order placed", body: "Sam is on it"))
        #expect(start.status == 200)
        #expect(start.result?.apnsID != nil)
        #expect(start.result?.apnsUniqueID != nil)

        var timestamp = Int64(at.timeIntervalSince1970)
        for step in DeliveryStep.allCases.dropFirst() {
            timestamp += 1
            let result = try await client.sendLiveActivity(
                to: DeviceToken(updateToken), event: step.isTerminal ? .end : .update,
                contentState: step.contentState(courierName: "Sam", riderReassigned: false, at: at),
                timestamp: timestamp,
                priority: step.isTerminal ? 10 : 5)
            #expect(result.isSuccess, "\(result.explanation)")
        }
        let records = harness.emulator.records(forToken: updateToken)
        #expect(records.count == 6)
        #expect(harness.emulator.records(forToken: DeviceToken(updateToken)).count == 6)
        // A record holds the token in-process; printing or dumping it shows only the fingerprint.
        var dumped = ""
        dump(records, to: &dumped)
        #expect(!dumped.contains(updateToken) && !"\(records)".contains(updateToken))
        #expect(dumped.contains(Fingerprint(of: updateToken).value))
        #expect(records.allSatisfy { $0.findings.isEmpty }, "\(records.flatMap(\.findings))")
        let final = try #require(harness.emulator.latestAccepted(forToken: updateToken))
        #expect(final.event == "end")
        let state = try LiveActivityJSON.decode(
            DeliveryAttributes.ContentState.self, from: try #require(final.contentState).encoded())
        #expect(state.status == "Delivered")
        #expect(harness.emulator.records(forToken: startToken).first?.findings.isEmpty == true)
        #expect(client.connectionsOpened == 1)
    }

    @Test("each push carries its own headers, whether they match the previous push's or not")
    func headersPerPush() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        let token = APNsHarness.randomToken()
        let payload = try LiveActivityPayload(
            event: .update, timestamp: Int64(at.timeIntervalSince1970),
            contentState: DeliveryStep.placed.contentState(courierName: "Sam", riderReassigned: false, at: at)
        ).encoded()
        // The client reuses the header array of a plain push for the next plain push alike: the ones that
        // differ (priority, expiration, collapse id, apns-id) must each arrive as sent, in any order.
        let pushes = [
            APNsPush(deviceToken: token, bundleID: APNsHarness.bundleID, payload: payload, priority: 5),
            APNsPush(deviceToken: token, bundleID: APNsHarness.bundleID, payload: payload, priority: 5),
            APNsPush(deviceToken: token, bundleID: APNsHarness.bundleID, payload: payload, priority: 10),
            APNsPush(deviceToken: token, bundleID: APNsHarness.bundleID, payload: payload, priority: 5, expiration: 0),
            APNsPush(
                deviceToken: token, bundleID: APNsHarness.bundleID, payload: payload, priority: 5, collapseID: "c1"),
            APNsPush(
                deviceToken: token, bundleID: APNsHarness.bundleID, payload: payload, priority: 10,
                apnsID: "123e4567-e89b-12d3-a456-426614174000"),
            APNsPush(deviceToken: token, bundleID: APNsHarness.bundleID, payload: payload, priority: 10),
        ]
        for push in pushes {
            let result = await client.send(push)
            #expect(result.isSuccess, "\(result.explanation)")
        }
        let records = harness.emulator.records(forToken: token)
        try #require(records.count == pushes.count)
        for (push, record) in zip(pushes, records) {
            #expect(record.headers["apns-priority"] == String(push.priority))
            #expect(record.headers["apns-expiration"] == push.expiration.map(String.init))
            #expect(record.headers["apns-collapse-id"] == push.collapseID)
            #expect(record.headers["apns-topic"] == push.topic)
            #expect(record.headers["authorization"] != nil)
        }
        #expect(records[5].apnsID == "123e4567-e89b-12d3-a456-426614174000")
        #expect(records[6].apnsID != records[5].apnsID)
    }

    @Test("accepted pushes that the phone would drop carry lint findings")
    func lintFindings() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        let token = APNsHarness.randomToken()
        harness.emulator.registerToken(token, environment: .sandbox, attributesType: DeliveryAttributes.typeName)
        let now = Int64(Date().timeIntervalSince1970)

        func send(_ json: String, priority: Int = 10) async -> [String] {
            let result = await client.send(
                APNsPush(
                    deviceToken: token, bundleID: APNsHarness.bundleID, payload: Array(json.utf8), priority: priority))
            #expect(result.status == 200)
            return harness.emulator.records(forToken: token).last?.findings.map(\.trap) ?? []
        }
        let good =
            #"{"status":"On the way","progress":0.5,"eta":\#(now - 978_307_200),"stopsRemaining":2,"courierName":"Sam","riderReassigned":false}"#
        #expect(await send(#"{"aps":{"event":"update","timestamp":\#(now),"content-state":\#(good)}}"#) == [])
        #expect(
            await send(#"{"aps":{"event":"update","timestamp":\#(now - 60),"content-state":\#(good)}}"#) == ["DT-020"])
        let renamed = good.replacingOccurrences(of: "courierName", with: "riderName")
        #expect(
            await send(#"{"aps":{"event":"update","timestamp":\#(now + 1),"content-state":\#(renamed)}}"#) == ["DT-013"]
        )
        let unixDate = good.replacingOccurrences(of: "\(now - 978_307_200)", with: "\(now)")
        #expect(
            await send(#"{"aps":{"event":"update","timestamp":\#(now + 2),"content-state":\#(unixDate)}}"#) == [
                "DT-017"
            ])
        #expect(
            await send(
                #"{"aps":{"event":"update","timestamp":\#(now + 3),"stale-date":\#(now - 100),"content-state":\#(good)}}"#
            ) == ["DT-021"])
        #expect(
            await send(
                #"{"aps":{"event":"start","timestamp":\#(now + 4),"attributes-type":"DeliveryAttributes","attributes":{"orderId":"1"},"content-state":\#(good)}}"#
            ) == ["DT-025"])
        #expect(
            await send(
                #"{"aps":{"event":"start","timestamp":\#(now + 5),"alert":{"title":"t"},"content-state":\#(good)}}"#)
                == ["DT-025", "DT-026", "DT-026"])
        #expect(
            await send(
                #"{"aps":{"event":"update","timestamp":\#(now + 6),"state-date":\#(now + 100),"content-state":\#(good)}}"#
            ) == ["DT-023"])
    }

    @Test("every header and path rule answers with Apple's status and reason")
    func headerRules() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let raw = try harness.rawClient()
        defer { raw.shutdown() }
        let jwt = try harness.providerToken().current()
        let token = APNsHarness.randomToken()
        let body = Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8)
        let topic = APNsHarness.bundleID + ".push-type.liveactivity"

        func send(
            method: String = "POST", path: String? = nil, headers: [HTTPHeader]? = nil, without: Set<String> = [],
            extra: [HTTPHeader] = [], body requestBody: [UInt8]? = nil
        ) async throws -> (Int, String?) {
            var list =
                headers ?? [
                    HTTPHeader("authorization", "bearer \(jwt)"), HTTPHeader("apns-topic", topic),
                    HTTPHeader("apns-push-type", "liveactivity"), HTTPHeader("apns-priority", "10"),
                ]
            list.removeAll { without.contains($0.name) }
            list.append(contentsOf: extra)
            let response = try await raw.execute(
                HTTP2Request(
                    method: method, path: path ?? "/3/device/\(token)", headers: list, body: requestBody ?? body))
            return (response.status, response.apnsReason)
        }

        #expect(try await send() == (200, nil))
        #expect(try await send(without: ["authorization"]) == (403, "MissingProviderToken"))
        #expect(try await send(without: ["apns-topic"]) == (400, "MissingTopic"))
        #expect(
            try await send(without: ["apns-topic"], extra: [HTTPHeader("apns-topic", APNsHarness.bundleID)]) == (
                400, "DeviceTokenNotForTopic"
            ))
        #expect(
            try await send(
                without: ["apns-topic"], extra: [HTTPHeader("apns-topic", "com.other.push-type.liveactivity")]) == (
                    400, "TopicDisallowed"
                ))
        #expect(
            try await send(without: ["apns-push-type"], extra: [HTTPHeader("apns-push-type", "alert")]) == (
                400, "InvalidPushType"
            ))
        #expect(
            try await send(without: ["apns-priority"], extra: [HTTPHeader("apns-priority", "7")]) == (
                400, "BadPriority"
            ))
        #expect(try await send(extra: [HTTPHeader("apns-expiration", "soon")]) == (400, "BadExpirationDate"))
        #expect(try await send(extra: [HTTPHeader("apns-id", "not-a-uuid")]) == (400, "BadMessageId"))
        #expect(
            try await send(extra: [HTTPHeader("apns-collapse-id", String(repeating: "c", count: 65))]) == (
                400, "BadCollapseId"
            ))
        #expect(try await send(extra: [HTTPHeader("apns-priority", "5")]) == (400, "DuplicateHeaders"))
        #expect(try await send(body: []) == (400, "PayloadEmpty"))
        #expect(try await send(body: Array(repeating: 0x20, count: 4097)) == (413, "PayloadTooLarge"))
        #expect(try await send(method: "GET") == (405, "MethodNotAllowed"))
        #expect(try await send(path: "/3/device/") == (400, "MissingDeviceToken"))
        #expect(try await send(path: "/3/device/xyz") == (400, "BadDeviceToken"))
        #expect(try await send(path: "/2/device/\(token)") == (404, "BadPath"))

        let production = APNsHarness.randomToken()
        harness.emulator.registerToken(production, environment: .production)
        #expect(try await send(path: "/3/device/\(production)") == (400, "BadDeviceToken"))
        let dead = APNsHarness.randomToken()
        harness.emulator.markTokenDead(dead)
        let response = try await raw.execute(
            HTTP2Request(
                method: "POST", path: "/3/device/\(dead)",
                headers: [
                    HTTPHeader("authorization", "bearer \(jwt)"), HTTPHeader("apns-topic", topic),
                    HTTPHeader("apns-push-type", "liveactivity"),
                ],
                body: body))
        #expect(response.status == 410)
        let object = try JSONValue.parse(Data(response.body))
        #expect(object["reason"]?.stringValue == "Unregistered")
        #expect((object["timestamp"]?.numberValue ?? 0) > 1_700_000_000_000)
    }

    @Test("provider tokens: wrong key, DER signature, string iat, expired, and too many updates on one connection")
    func providerTokens() async throws {
        let clock = ManualWallClock(Date())
        let harness = try APNsHarness(clock: clock)
        defer { harness.stop() }
        let token = APNsHarness.randomToken()
        let body = Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8)
        func send(_ jwt: String, on raw: HTTP2Client) async throws -> (Int, String?) {
            let response = try await raw.execute(
                HTTP2Request(
                    method: "POST", path: "/3/device/\(token)",
                    headers: [
                        HTTPHeader("authorization", "bearer \(jwt)"),
                        HTTPHeader("apns-topic", APNsHarness.bundleID + ".push-type.liveactivity"),
                        HTTPHeader("apns-push-type", "liveactivity"),
                    ], body: body))
            return (response.status, response.apnsReason)
        }
        func jwt(iat: Any, key: PrivateKey? = nil, der: Bool = false) throws -> String {
            let header = try JSONSerialization.data(
                withJSONObject: ["alg": "ES256", "kid": APNsHarness.keyID], options: [.sortedKeys])
            let claims = try JSONSerialization.data(
                withJSONObject: ["iss": APNsHarness.teamID, "iat": iat], options: [.sortedKeys])
            let input = Base64URL.encode(header) + "." + Base64URL.encode(claims)
            var signature = try (key ?? harness.key).sign(Array(input.utf8))
            if der { signature = try ECDSASignature.derFromRaw(signature) }
            return input + "." + Base64URL.encode(signature)
        }
        let now = clock.unixSeconds()
        let fresh = { try harness.rawClient() }

        var raw = try fresh()
        #expect(
            try await send(try jwt(iat: now, key: try PrivateKey.generate(.es256)), on: raw) == (
                403, "InvalidProviderToken"
            ))
        raw.shutdown()
        raw = try fresh()
        #expect(try await send("not.a.jwt", on: raw) == (403, "InvalidProviderToken"))
        raw.shutdown()
        raw = try fresh()
        #expect(try await send(try jwt(iat: now, der: true), on: raw) == (200, nil))
        raw.shutdown()
        raw = try fresh()
        #expect(try await send(try jwt(iat: String(now + 1)), on: raw) == (200, nil))
        raw.shutdown()
        raw = try fresh()
        #expect(try await send(try jwt(iat: now - 3601), on: raw) == (403, "ExpiredProviderToken"))
        raw.shutdown()

        // One connection: a second token within 20 minutes is refused; after 20 minutes it is fine.
        raw = try fresh()
        defer { raw.shutdown() }
        #expect(try await send(try jwt(iat: now), on: raw) == (200, nil))
        #expect(try await send(try jwt(iat: now + 60), on: raw) == (429, "TooManyProviderTokenUpdates"))
        clock.advance(by: 20 * 60)
        #expect(try await send(try jwt(iat: now + 120), on: raw) == (200, nil))

        let strict = try APNsHarness(clock: clock, strictSignatures: true)
        defer { strict.stop() }
        let strictRaw = try strict.rawClient()
        defer { strictRaw.shutdown() }
        let header = try JSONSerialization.data(
            withJSONObject: ["alg": "ES256", "kid": APNsHarness.keyID], options: [.sortedKeys])
        let claims = try JSONSerialization.data(
            withJSONObject: ["iss": APNsHarness.teamID, "iat": clock.unixSeconds()], options: [.sortedKeys])
        let input = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        let derJWT =
            input + "." + Base64URL.encode(try ECDSASignature.derFromRaw(try strict.key.sign(Array(input.utf8))))
        #expect(try await send(derJWT, on: strictRaw) == (403, "InvalidProviderToken"))
    }
}
