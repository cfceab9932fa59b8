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

@Suite("The Android Live Update data map")
struct LiveUpdateCodecTests {
    static let names = ["start", "update.on-the-way", "update.reassigned", "end"]

    static func message(_ name: String) -> DeliveryLiveUpdate.Message {
        let at = Date(timeIntervalSince1970: referenceUnix)
        let base = Int64(referenceUnix)
        switch name {
        case "start":
            return .init(
                activityId: "act-A-1042", event: .start, orderId: "A-1042",
                state: DeliveryStep.placed.contentState(courierName: "Sam", riderReassigned: false, at: at),
                sequence: base)
        case "update.on-the-way":
            return .init(
                activityId: "act-A-1042", event: .update, orderId: "A-1042",
                state: DeliveryStep.onTheWay.contentState(courierName: "Sam", riderReassigned: false, at: at),
                sequence: base + 100)
        case "update.reassigned":
            return .init(
                activityId: "act-A-1042", event: .update, orderId: "A-1042",
                state: DeliveryStep.onTheWay.contentState(courierName: "Priya", riderReassigned: true, at: at),
                sequence: base + 200)
        default:
            return .init(
                activityId: "act-A-1042", event: .end, orderId: "A-1042",
                state: DeliveryStep.delivered.contentState(courierName: "Priya", riderReassigned: true, at: at),
                sequence: base + 300)
        }
    }

    @Test("each vector decodes to its message and the message encodes to the vector", arguments: names)
    func vectors(name: String) throws {
        let expected = LiveUpdateCodecTests.message(name)
        let object = try JSONValue.parse(try vector("android/\(name).json"))
        let map = try #require(object.objectValue).compactMapValues(\.stringValue)
        #expect(map.count == DeliveryLiveUpdate.Key.all.count)
        #expect(try DeliveryLiveUpdate.decode(map) == expected)
        #expect(DeliveryLiveUpdate.encode(expected) == map)
        #expect(
            JSONValue.object(DeliveryLiveUpdate.encode(expected).mapValues { .string($0) }).serialized()
                == Array(try vector("android/\(name).json")))
    }

    @Test("every value is a string, written without locale")
    func strings() {
        let map = DeliveryLiveUpdate.encode(LiveUpdateCodecTests.message("update.on-the-way"))
        #expect(map["progress"] == "0.7142857142857143")
        #expect(map["riderReassigned"] == "false")
        #expect(map["schemaVersion"] == "1")
        #expect(Set(map.keys) == Set(DeliveryLiveUpdate.Key.all))
    }

    @Test("strict decoding names the key at fault")
    func errors() {
        var map = DeliveryLiveUpdate.encode(LiveUpdateCodecTests.message("end"))
        map["progress"] = "half"
        #expect(
            throws: DeliveryLiveUpdate.DataMapError(
                key: "progress", message: "'progress' must be a number written as a string, not 'half'")
        ) {
            try DeliveryLiveUpdate.decode(map)
        }
        map = DeliveryLiveUpdate.encode(LiveUpdateCodecTests.message("end"))
        map["activityId"] = nil
        #expect(throws: DeliveryLiveUpdate.DataMapError(key: "activityId", message: "'activityId' is missing")) {
            try DeliveryLiveUpdate.decode(map)
        }
    }
}

@Suite("FCM messages and errors")
struct FCMWireTests {
    @Test("the request body uses the Admin SDKs' snake_case names and a Duration ttl")
    func body() throws {
        let message = FCMMessage(target: .token("t1"), data: ["a": "1"], priority: .high, ttl: 30, collapseKey: "k")
        #expect(
            String(decoding: message.requestBody(), as: UTF8.self)
                == #"{"message":{"android":{"collapse_key":"k","priority":"high","ttl":"30s"},"data":{"a":"1"},"token":"t1"}}"#
        )
        #expect(
            String(decoding: message.requestBody(validateOnly: true), as: UTF8.self).hasSuffix(
                #""validate_only":true}"#))
        #expect(FCMMessage.durationString(1.5) == "1.500000000s")
        #expect(FCMMessage.durationString(0) == "0s")
    }

    @Test("FCM's path to a Live Activity carries the same aps payload the APNs client builds")
    func liveActivityThroughFCM() throws {
        let state = DeliveryStep.onTheWay.contentState(
            courierName: "Sam", riderReassigned: false, at: Date(timeIntervalSince1970: referenceUnix))
        let payload = LiveActivityPayload(
            event: .update, timestamp: Int64(referenceUnix) + 100, contentState: state,
            staleDate: Int64(referenceUnix) + 3600)
        let message = try FCMMessage.liveActivity(
            registrationToken: DeviceToken("fcm-1"), liveActivityToken: DeviceToken("abcd"), payload: payload)
        let body = try JSONValue.parse(bytes: message.requestBody())
        #expect(body["message"]?["token"]?.stringValue == "fcm-1")
        #expect(body["message"]?["apns"]?["live_activity_token"]?.stringValue == "abcd")
        #expect(body["message"]?["apns"]?["payload"] == (try JSONValue.parse(try vector("apns/update.json"))))
        #expect(body["message"]?["apns"]?["headers"]?["apns-push-type"]?.stringValue == "liveactivity")
    }

    @Test("reserved keys, size, ttl range and empty targets are refused before sending, naming the field")
    func validation() {
        for key in ["from", "message_type", "google.sent_time", "gcm.notification.title", "gcm.x"] {
            #expect {
                try FCMMessage(target: .token("t"), data: [key: "x"]).validate()
            } throws: { error in
                (error as? FCMRequestError)?.field == "message.data.\(key)"
            }
        }
        #expect {
            try FCMMessage(target: .token("t"), data: ["big": String(repeating: "x", count: 4094)]).validate()
        } throws: { error in
            let error = error as? FCMRequestError
            return error?.field == "message.data" && error?.message.contains("4097 bytes") == true
        }
        #expect(throws: FCMRequestError.self) {
            try FCMMessage(target: .topic("news"), data: ["x": String(repeating: "y", count: 2048)]).validate()
        }
        #expect(throws: FCMRequestError.self) { try FCMMessage(target: .token("t"), ttl: 2_419_201).validate() }
        #expect(throws: FCMRequestError.self) { try FCMMessage(target: .token("")).validate() }
    }

    static func errorBody(_ status: String, _ code: String?, message: String = "m") -> [UInt8] {
        var details = ""
        if let code {
            details =
                #","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(code)"}]"#
        }
        return Array(#"{"error":{"code":0,"message":"\#(message)","status":"\#(status)"\#(details)}}"#.utf8)
    }

    @Test("every FCM error code parses and carries its remedy")
    func remedies() {
        func result(_ status: Int, _ rpc: String, _ code: String?, message: String = "m", retryAfter: String? = nil)
            -> FCMResult
        {
            FCMResult(
                status: status, headers: retryAfter.map { [("retry-after", $0)] } ?? [],
                body: FCMWireTests.errorBody(rpc, code, message: message))
        }
        #expect(result(404, "NOT_FOUND", "UNREGISTERED").remedy == .deleteToken)
        #expect(result(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", message: "Invalid ttl").remedy == .rejectRequest)
        let badToken = result(
            400, "INVALID_ARGUMENT", "INVALID_ARGUMENT",
            message: "The registration token is not a valid FCM registration token")
        #expect(badToken.remedy == .deleteToken && badToken.tokenInvalid)
        #expect(result(403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH").remedy == .deleteToken)
        #expect(result(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED").remedy == .retry(after: .seconds(60)))
        #expect(
            result(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED", retryAfter: "120").remedy
                == .retry(after: .seconds(120)))
        #expect(
            result(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED", retryAfter: "5").remedy == .retry(after: .seconds(60)))
        let project = result(429, "RESOURCE_EXHAUSTED", nil)
        #expect(project.errorCode == .resourceExhausted && project.remedy == .retry(after: .seconds(60)))
        #expect(result(503, "UNAVAILABLE", "UNAVAILABLE", retryAfter: "7").remedy == .retry(after: .seconds(7)))
        #expect(result(500, "INTERNAL", "INTERNAL").remedy == .retry(after: nil))
        let thirdParty = result(401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR")
        #expect(thirdParty.remedy == .rejectRequest && thirdParty.explanation.contains("configuration error"))
        #expect(result(401, "UNAUTHENTICATED", nil).remedy == .refreshCredentials)
        #expect(result(403, "PERMISSION_DENIED", nil).remedy == .rejectRequest)
        #expect(
            FCMResult(status: 200, headers: [], body: Array(#"{"name":"projects/p/messages/1"}"#.utf8)).messageName
                == "projects/p/messages/1")
        for code in FCMErrorCode.fcmErrorCodes { #expect(FCMErrorCode(rawValue: code.rawValue) == code) }
    }
}

@Suite("FCM client against the emulator over TLS h2")
struct FCMEndToEndTests {
    @Test("OAuth then send: the message arrives with its data and priority")
    func send() async throws {
        let harness = try FCMHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        let token = harness.newToken()
        let deliveries = Mutex<[FCMDelivery]>([])
        harness.emulator.addDeliveryListener { delivery in deliveries.withLock { $0.append(delivery) } }
        let data = DeliveryLiveUpdate.encode(LiveUpdateCodecTests.message("update.on-the-way"))
        let result = await client.send(FCMMessage(target: .token(token), data: data, priority: .high, ttl: 60))
        #expect(result.isSuccess, "\(result.explanation)")
        #expect(result.result?.messageName?.hasPrefix("projects/droptrack-demo/messages/") == true)
        #expect(deliveries.withLock { $0.first?.data } == data)
        #expect(deliveries.withLock { $0.first?.priority } == "high")
        #expect(harness.emulator.latestDelivered(forToken: token)?.ttl == "60s")
        #expect(client.tokens.exchanges == 1)

        let dry = await client.send(FCMMessage(target: .token(token), data: data), validateOnly: true)
        #expect(dry.result?.messageName == "projects/droptrack-demo/messages/fake_message_id")
        #expect(deliveries.withLock { $0.count } == 1)
    }

    @Test(
        "fifty concurrent sends share one connection and one token exchange; it is refreshed 5 minutes before expiry")
    func singleFlight() async throws {
        let clock = ManualWallClock(Date())
        let harness = try FCMHarness(clock: clock)
        defer { harness.stop() }
        let client = try harness.client(clock: clock)
        defer { client.shutdown() }
        let token = harness.newToken()
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                group.addTask {
                    await client.send(FCMMessage(target: .token(token), data: ["n": String(index)])).isSuccess
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 50 && results.allSatisfy { $0 })
        #expect(client.connectionsOpened == 1, "fifty sends multiplexed on one HTTP/2 connection")
        #expect(client.tokens.exchanges == 1)
        #expect(harness.emulator.tokenExchanges == 1)
        clock.advance(by: 54 * 60)
        #expect(await client.send(FCMMessage(target: .token(token))).isSuccess)
        #expect(client.tokens.exchanges == 1)
        clock.advance(by: 60 + 1)
        #expect(await client.send(FCMMessage(target: .token(token))).isSuccess)
        #expect(client.tokens.exchanges == 2)
    }

    @Test(
        "the client reads Google's clock from its Date headers and warns once, with the fix, when this machine's is more than 5 minutes off (DT-064)"
    )
    func providerClock() async throws {
        let ahead = try FCMHarness(clock: ShiftedWallClock(seconds: 600))
        defer { ahead.stop() }
        let logs = InMemoryLogHandler()
        let client = try ahead.client(logger: Logger(handler: logs, minimumLevel: .debug))
        defer { client.shutdown() }
        #expect(client.providerClockOffset == nil, "nothing heard yet")
        // Answers in two different seconds: the offset is read again, and the warning is not repeated.
        #expect(await client.send(FCMMessage(target: .token(ahead.newToken()))).isSuccess)
        try await Task.sleep(for: .milliseconds(1100))
        #expect(await client.send(FCMMessage(target: .token(ahead.newToken()))).isSuccess)
        let offset = try #require(client.providerClockOffset)
        #expect(abs(offset - 600) <= 2, "\(offset)")
        let warnings = logs.entries.filter { $0.message == "http2.peer_clock_offset" }
        #expect(warnings.count == 1 && warnings.first?.level == .warning)
        #expect(warnings.first?.metadata["fix"]?.contains("NTP") == true)

        let onTime = try FCMHarness()
        defer { onTime.stop() }
        let quiet = InMemoryLogHandler()
        let other = try onTime.client(logger: Logger(handler: quiet, minimumLevel: .debug))
        defer { other.shutdown() }
        #expect(await other.send(FCMMessage(target: .token(onTime.newToken()))).isSuccess)
        #expect(abs(try #require(other.providerClockOffset)) <= 2)
        #expect(!quiet.entries.contains { $0.message == "http2.peer_clock_offset" })
    }

    @Test("a 401 refreshes the access token and retries once")
    func unauthenticatedRetry() async throws {
        let harness = try FCMHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        let token = harness.newToken()
        #expect(await client.send(FCMMessage(target: .token(token))).isSuccess)
        harness.emulator.setFaults([FCMFault(kind: .unauthenticated, times: 1)])
        let result = await client.send(FCMMessage(target: .token(token)))
        #expect(result.isSuccess)
        #expect(result.attempts == 2)
        #expect(client.tokens.exchanges == 2)
        harness.emulator.setFaults([FCMFault(kind: .unauthenticated)])
        let stuck = await client.send(FCMMessage(target: .token(token)))
        #expect(stuck.result?.errorCode == .unauthenticated && stuck.attempts == 2)
    }

    @Test("scripted faults come back typed, each with its remedy")
    func faults() async throws {
        let harness = try FCMHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        let cases: [(FCMFault, FCMErrorCode, PushRemedy)] = [
            (FCMFault(kind: .unregistered), .unregistered, .deleteToken),
            (FCMFault(kind: .senderIdMismatch), .senderIdMismatch, .deleteToken),
            (FCMFault(kind: .invalidToken), .invalidArgument, .deleteToken),
            (FCMFault(kind: .quotaExceeded, retryAfterSeconds: 90), .quotaExceeded, .retry(after: .seconds(90))),
            (FCMFault(kind: .resourceExhausted), .resourceExhausted, .retry(after: .seconds(60))),
            (FCMFault(kind: .internal), .internal, .retry(after: nil)),
            (FCMFault(kind: .unavailable, retryAfterSeconds: 3), .unavailable, .retry(after: .seconds(3))),
            (FCMFault(kind: .thirdPartyAuthError), .thirdPartyAuthError, .rejectRequest),
        ]
        for (fault, code, remedy) in cases {
            let token = harness.newToken()
            var scoped = fault
            scoped.token = token
            harness.emulator.setFaults([scoped])
            let result = await client.send(FCMMessage(target: .token(token), data: ["a": "b"]))
            #expect(result.result?.errorCode == code, "\(fault.kind)")
            #expect(result.remedy == remedy, "\(fault.kind)")
        }
        let slow = harness.newToken()
        harness.emulator.setFaults([FCMFault(kind: .delay, token: slow, delayMilliseconds: 200)])
        let started = ContinuousClock.now
        #expect(await client.send(FCMMessage(target: .token(slow))).isSuccess)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    @Test("the emulator refuses what FCM refuses, naming the field")
    func validation() async throws {
        let harness = try FCMHarness()
        defer { harness.stop() }
        let raw = HTTP2Client(configuration: .init(host: "127.0.0.1", port: harness.port), tls: try TestPKI.clientTLS())
        defer { raw.shutdown() }
        let client = try harness.client()
        defer { client.shutdown() }
        let accessToken = try await client.tokens.accessToken()
        let token = harness.newToken()
        func post(_ body: String, project: String = FCMHarness.projectID, bearer: String? = nil) async throws -> (
            Int, String
        ) {
            let response = try await raw.execute(
                HTTP2Request(
                    method: "POST", path: "/v1/projects/\(project)/messages:send",
                    headers: [
                        HTTPHeader("authorization", "Bearer \(bearer ?? accessToken)"),
                        HTTPHeader("content-type", "application/json"),
                    ],
                    body: Array(body.utf8)))
            return (response.status, String(decoding: response.body, as: UTF8.self))
        }
        var (status, body) = try await post(#"{"message":{"token":"\#(token)","data":{"eta":1796000000}}}"#)
        #expect(status == 400 && body.contains("message.data[eta].value") && body.contains("INVALID_ARGUMENT"))
        (status, body) = try await post(#"{"message":{"token":"\#(token)","data":{"google.x":"1"}}}"#)
        #expect(status == 400 && body.contains("google.x"))
        (status, body) = try await post(#"{"message":{"token":"\#(token)","topic":"news"}}"#)
        #expect(status == 400 && body.contains("Exactly one"))
        (status, body) = try await post(#"{"message":{"token":"\#(token)","android":{"ttl":"30"}}}"#)
        #expect(status == 400 && body.contains("message.android.ttl"))
        (status, body) = try await post(#"{"message":{"token":"\#(token)","android":{"ttl":"2419201s"}}}"#)
        #expect(status == 400 && body.contains("out of range"))
        (status, body) = try await post(#"{"message":{"token":"\#(token)","android":{"priority":"urgent"}}}"#)
        #expect(status == 400 && body.contains("message.android.priority"))
        (status, body) = try await post(#"{"message":{"token":"\#(token)","android":{"priority":"HIGH"}}}"#)
        #expect(status == 200)
        (status, body) = try await post(
            #"{"message":{"token":"\#(token)","data":{"x":"\#(String(repeating: "y", count: 4096))"}}}"#)
        #expect(status == 400 && body.contains("too big"))
        (status, body) = try await post(#"{"message":{"token":"never-registered"}}"#)
        #expect(status == 404 && body.contains("UNREGISTERED"))
        harness.emulator.registerToken("other-project", project: "someone-else")
        (status, body) = try await post(#"{"message":{"token":"other-project"}}"#)
        #expect(status == 403 && body.contains("SENDER_ID_MISMATCH"))
        (status, body) = try await post(#"{"message":{"token":"\#(token)"}}"#, project: "not-mine")
        #expect(status == 403 && body.contains("PERMISSION_DENIED"))
        (status, body) = try await post(#"{"message":{"token":"\#(token)"}}"#, bearer: "made-up")
        #expect(status == 401 && body.contains("UNAUTHENTICATED"))
        (status, body) = try await post(#"{"message":"#)
        #expect(status == 400)
        (status, body) = try await post(#"{"message":{"token":"\#(token)"},"extra":1}"#)
        #expect(status == 400 && body.contains("Unknown name"))
    }

    @Test("the token endpoint checks signature, audience, scope and lifetime, answering as Google does")
    func tokenEndpoint() async throws {
        let clock = ManualWallClock(Date())
        let harness = try FCMHarness(clock: clock)
        defer { harness.stop() }
        let raw = HTTP2Client(configuration: .init(host: "127.0.0.1", port: harness.port), tls: try TestPKI.clientTLS())
        defer { raw.shutdown() }
        func exchange(
            header: [String: JSONValue]? = nil, claims change: (inout [String: JSONValue]) -> Void = { _ in },
            key: PrivateKey? = nil
        ) async throws -> (Int, JSONValue) {
            let now = Double(clock.unixSeconds())
            var claims: [String: JSONValue] = [
                "iss": .string(FCMHarness.clientEmail), "scope": .string(GoogleAccessTokens.messagingScope),
                "aud": .string(GoogleAccessTokens.googleAudience), "iat": .number(now), "exp": .number(now + 3600),
            ]
            change(&claims)
            let headerJSON = JSONValue.object(
                header ?? ["alg": .string("RS256"), "typ": .string("JWT"), "kid": .string("kid-1")])
            let jwt = try JWS.sign(
                header: headerJSON.encoded(), claims: JSONValue.object(claims).encoded(), with: key ?? harness.key)
            let response = try await raw.execute(
                HTTP2Request(
                    method: "POST", path: "/token",
                    headers: [HTTPHeader("content-type", "application/x-www-form-urlencoded")],
                    body: Array(
                        "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(jwt)".utf8)))
            return (response.status, try JSONValue.parse(bytes: response.body))
        }
        var (status, body) = try await exchange()
        #expect(status == 200 && body["token_type"]?.stringValue == "Bearer" && body["expires_in"]?.numberValue == 3599)
        (status, body) = try await exchange(key: try PrivateKey.generate(.rs256))
        #expect(
            status == 400 && body["error"]?.stringValue == "invalid_grant"
                && body["error_description"]?.stringValue == "Invalid JWT Signature.")
        (status, body) = try await exchange(claims: { $0["aud"] = .string("https://example.com/token") })
        #expect(status == 400 && body["error"]?.stringValue == "invalid_grant")
        (status, body) = try await exchange(claims: {
            $0["scope"] = .string("https://www.googleapis.com/auth/userinfo.email")
        })
        #expect(status == 400 && body["error"]?.stringValue == "invalid_scope")
        (status, body) = try await exchange(claims: { $0["exp"] = .number(($0["iat"]?.numberValue ?? 0) + 3601) })
        #expect(status == 400 && body["error_description"]?.stringValue?.contains("short-lived") == true)
        (status, body) = try await exchange(claims: { claims in
            claims["iat"] = .number((claims["iat"]?.numberValue ?? 0) - 7200)
            claims["exp"] = .number((claims["iat"]?.numberValue ?? 0) + 3600)
        })
        #expect(status == 400 && body["error"]?.stringValue == "invalid_grant")
    }

    @Test("a token-endpoint refusal comes back as a typed OAuth error, not a crash or a hang")
    func oauthFailure() async throws {
        let harness = try FCMHarness()
        defer { harness.stop() }
        let stranger = try PrivateKey.generate(.rs256)
        let document = GoogleServiceAccount.document(
            projectID: FCMHarness.projectID, privateKeyID: "kid-x", clientEmail: FCMHarness.clientEmail,
            tokenURI: "https://127.0.0.1:\(harness.port)/token", privateKeyPEM: stranger.pkcs8PEM)
        let client = try FCMClient(
            configuration: FCMClientConfiguration(
                account: try GoogleServiceAccount(json: Data(document)), baseURL: "https://127.0.0.1:\(harness.port)",
                caFile: TestPKI.shared.caFile))
        defer { client.shutdown() }
        let result = await client.send(FCMMessage(target: .token(harness.newToken())))
        guard case .authFailure(let error) = result.outcome else {
            Issue.record("expected an OAuth failure, got \(result.explanation)")
            return
        }
        #expect(error.code == "invalid_grant" && !error.isTransient)
        #expect(result.remedy == .rejectRequest)
        #expect(result.explanation.contains("Invalid JWT Signature"))
    }

    @Test("a service-account file with a missing or malformed field names it")
    func serviceAccountErrors() throws {
        let key = try PrivateKey.generate(.rs256).pkcs8PEM
        func account(_ change: (inout [String: JSONValue]) -> Void) -> ServiceAccountError? {
            var object: [String: JSONValue] = [
                "type": .string("service_account"), "project_id": .string("p"), "private_key_id": .string("k"),
                "private_key": .string(key), "client_email": .string("a@p.iam.gserviceaccount.com"),
                "token_uri": .string("https://oauth2.googleapis.com/token"),
            ]
            change(&object)
            do {
                _ = try GoogleServiceAccount(json: JSONValue.object(object).encoded())
                return nil
            } catch { return error }
        }
        #expect(account { _ in } == nil)
        for field in ["type", "project_id", "private_key_id", "private_key", "client_email", "token_uri"] {
            #expect(account { $0[field] = nil }?.field == field)
        }
        #expect(account { $0["private_key"] = .string("garbage") }?.field == "private_key")
        #expect(account { $0["token_uri"] = .string("http://insecure/token") }?.field == "token_uri")
        #expect(account { $0["type"] = .string("authorized_user") }?.field == "type")
        #expect(account { $0["project_id"] = .number(5) }?.field == "project_id")
        let ecKey = try PrivateKey.generate(.es256).pkcs8PEM
        #expect(account { $0["private_key"] = .string(ecKey) }?.message.contains("RSA") == true)
    }
}
