import DropTrackContract
import DropTrackCore
import DropTrackEmulators
import DropTrackHTTP2
import DropTrackModel
import DropTrackProviders
import DropTrackTesting
import DropTrackWire
import Foundation
import Synchronization
import Testing

@Suite("Scripted APNs faults and how the client handles them")
struct APNsFaultTests {
    func update(_ client: APNsClient, _ token: String, tokenEnvironment: APNsEnvironment? = nil) async throws
        -> APNsSendResult
    {
        try await client.sendLiveActivity(
            to: DeviceToken(token), event: .update, contentState: ["n": 1], tokenEnvironment: tokenEnvironment)
    }

    @Test("410 Unregistered for one token: delete it, with the time it died; other tokens are unaffected")
    func unregistered() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        let dead = APNsHarness.randomToken()
        harness.emulator.setFaults([APNsFault(kind: .unregistered, token: dead)])
        let result = try await update(client, dead)
        #expect(result.status == 410)
        #expect(result.result?.reason == .unregistered)
        #expect(result.remedy == .deleteToken)
        #expect(result.result?.invalidatedAt != nil)
        #expect(try await update(client, APNsHarness.randomToken()).status == 200)
    }

    @Test("400 BadDeviceToken deletes a token only when its environment matches the host")
    func badDeviceToken() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        let token = APNsHarness.randomToken()
        harness.emulator.setFaults([APNsFault(kind: .badDeviceToken, token: token)])
        let sameEnvironment = try await update(client, token, tokenEnvironment: .sandbox)
        #expect(sameEnvironment.remedy == .deleteToken)
        let production = APNsHarness.randomToken()
        harness.emulator.registerToken(production, environment: .production)
        let mismatch = try await update(client, production, tokenEnvironment: .production)
        #expect(mismatch.result?.reason == .badDeviceToken)
        #expect(mismatch.result?.environmentMismatch == true)
        #expect(mismatch.remedy == .rejectRequest)
        #expect(mismatch.explanation.contains("configuration error"))
    }

    @Test("429 with and without Retry-After, 500 and 503: retry, honouring the delay")
    func retryable() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        let tokens = (0..<4).map { _ in APNsHarness.randomToken() }
        harness.emulator.setFaults([
            APNsFault(kind: .tooManyRequests, token: tokens[0], retryAfterSeconds: 30),
            APNsFault(kind: .tooManyRequests, token: tokens[1]),
            APNsFault(kind: .internalServerError, token: tokens[2]),
            APNsFault(kind: .serviceUnavailable, token: tokens[3], retryAfterSeconds: 5),
        ])
        #expect(try await update(client, tokens[0]).remedy == .retry(after: .seconds(30)))
        #expect(try await update(client, tokens[1]).remedy == .retry(after: nil))
        let serverError = try await update(client, tokens[2])
        #expect(serverError.status == 500 && serverError.remedy == .retry(after: nil))
        let unavailable = try await update(client, tokens[3])
        #expect(unavailable.status == 503 && unavailable.remedy == .retry(after: .seconds(5)))
    }

    @Test("a GOAWAY in mid-flight loses no push: refused streams are resent on a new connection")
    func goAway() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        harness.emulator.setFaults([APNsFault(kind: .goAway, everyNth: 150, times: 1)])
        let tokens = (0..<400).map { _ in APNsHarness.randomToken() }
        let outcomes = await withTaskGroup(of: String.self) { group in
            for token in tokens {
                group.addTask {
                    do { return String(try await update(client, token).status) } catch { return "\(error)" }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.count == 400)
        let failed = Dictionary(grouping: outcomes.filter { $0 != "200" }, by: { $0 }).mapValues(\.count)
        #expect(failed.isEmpty, "\(failed); connections ended: \(client.connectionEndReasons)")
        #expect(client.connectionsOpened >= 2)
        // Exactly once: a stream refused after the handler had accepted its push would be sent twice.
        let notOnce = tokens.filter { token in harness.emulator.records(forToken: token).count { $0.status == 200 } != 1
        }
        #expect(notOnce.isEmpty, "\(notOnce.count) tokens not accepted exactly once")
    }

    @Test("a connection reset fails the push in flight (reconnect), and the next push goes out on a new connection")
    func connectionReset() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        #expect(try await update(client, APNsHarness.randomToken()).status == 200)
        let victim = APNsHarness.randomToken()
        harness.emulator.setFaults([APNsFault(kind: .connectionReset, token: victim, times: 1)])
        let lost = try await update(client, victim)
        guard case .transportFailure(let error) = lost.outcome else {
            Issue.record("expected a transport failure, got \(lost.explanation)")
            return
        }
        #expect(error.code == .connectionLost)
        #expect(lost.remedy == .reconnect)
        #expect(try await update(client, victim).status == 200)
        #expect(client.connectionsOpened == 2)
    }

    @Test("a delay longer than the deadline ends in deadlineExceeded; nothing hangs")
    func delay() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client(timeout: .milliseconds(200))
        defer { client.shutdown() }
        let slow = APNsHarness.randomToken()
        harness.emulator.setFaults([APNsFault(kind: .delay, token: slow, delayMilliseconds: 1500)])
        let result = try await update(client, slow)
        guard case .transportFailure(let error) = result.outcome else {
            Issue.record("expected a deadline failure, got \(result.explanation)")
            return
        }
        #expect(error.code == .deadlineExceeded)
        #expect(try await update(client, APNsHarness.randomToken()).status == 200)
    }

    @Test("with SETTINGS_MAX_CONCURRENT_STREAMS = 1 the client sends one stream at a time and loses nothing")
    func oneStream() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        harness.emulator.apply(
            APNsFaultScript(faults: [APNsFault(kind: .delay, delayMilliseconds: 40)], maxConcurrentStreams: 1))
        let client = try harness.client(maxConnections: 1)
        defer { client.shutdown() }
        let started = ContinuousClock.now
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<10 { group.addTask { (try? await update(client, APNsHarness.randomToken()).status) ?? -1 } }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 10))
        // Ten 40 ms answers one after another cannot take less than 400 ms; in parallel they would take 40.
        #expect(ContinuousClock.now - started >= .milliseconds(400))
        #expect(client.connectionsOpened == 1)
    }

    @Test("like APNs, one stream until the connection's first valid provider token, then the full limit")
    func oneStreamUntilValidToken() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let raw = try harness.rawClient()
        defer { raw.shutdown() }
        func push(_ authorization: String) async throws -> Int {
            try await raw.execute(
                HTTP2Request(
                    method: "POST", path: "/3/device/\(APNsHarness.randomToken())",
                    headers: [
                        HTTPHeader("authorization", authorization),
                        HTTPHeader("apns-topic", APNsHarness.bundleID + ".push-type.liveactivity"),
                        HTTPHeader("apns-push-type", "liveactivity"),
                    ], body: Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8))
            ).status
        }
        #expect(try await push("bearer not.a.token") == 403)
        #expect(raw.streamLimits == [1])
        #expect(try await push("bearer " + harness.providerToken().current()) == 200)
        #expect(raw.streamLimits == [1000])
    }

    @Test("an idle connection is kept alive with PINGs and reused")
    func keepAlive() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try APNsClient(
            configuration: APNsClientConfiguration(
                bundleID: APNsHarness.bundleID, providerToken: try harness.providerToken(),
                endpoint: .custom(host: "127.0.0.1", port: harness.port), caFile: TestPKI.shared.caFile,
                pingInterval: .milliseconds(100)))
        defer { client.shutdown() }
        #expect(try await update(client, APNsHarness.randomToken()).status == 200)
        let before = harness.emulator.pingsReceived
        try await Task.sleep(for: .milliseconds(1000))
        #expect(harness.emulator.pingsReceived > before)
        #expect(try await update(client, APNsHarness.randomToken()).status == 200)
        #expect(client.connectionsOpened == 1)
    }

    @Test("faults fire on every n-th request and run out after `times`")
    func nthAndTimes() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        harness.emulator.setFaults([APNsFault(kind: .internalServerError, everyNth: 3, times: 2)])
        var statuses: [Int] = []
        for _ in 0..<9 { statuses.append(try await update(client, APNsHarness.randomToken()).status) }
        #expect(statuses == [200, 200, 500, 200, 200, 500, 200, 200, 200])
    }

    @Test("a fault script file is read, and a bad one names the problem")
    func faultFile() throws {
        let directory = makeTemporaryDirectory("faults")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = directory + "/good.json"
        try
            #"{"faults":[{"kind":"unregistered","token":"abcd"},{"kind":"delay","delayMilliseconds":5}],"maxConcurrentStreams":1}"#
            .write(toFile: good, atomically: true, encoding: .utf8)
        let script = try APNsFaultScript.load(path: good)
        #expect(script.faults.count == 2)
        #expect(script.maxConcurrentStreams == 1)
        let bad = directory + "/bad.json"
        try #"{"faults":[{"kind":"explode"}]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        #expect {
            _ = try APNsFaultScript.load(path: bad)
        } throws: { error in
            "\(error)".contains(bad) && "\(error)".contains("unregistered")
        }
    }
}

@Suite("Broadcast channels against the emulator")
struct APNsBroadcastTests {
    @Test("create, read, list, broadcast, delete; a deleted channel is ChannelNotRegistered")
    func channelLifecycle() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        let deliveries = Mutex<[APNsDelivery]>([])
        harness.emulator.addDeliveryListener { delivery in deliveries.withLock { $0.append(delivery) } }

        let channel = try await client.createChannel(policy: .mostRecentMessageStored)
        #expect(Data(base64Encoded: channel) != nil)
        #expect(try await client.readChannel(channel) == .mostRecentMessageStored)
        #expect(try await client.listChannels() == [channel])

        let payload = try LiveActivityPayload(
            event: .update, timestamp: Int64(Date().timeIntervalSince1970), contentState: ["score": 2]
        ).encoded()
        let sent = await client.send(APNsPush(channelID: channel, bundleID: APNsHarness.bundleID, payload: payload))
        #expect(sent.status == 200)
        #expect(sent.result?.apnsID != nil)
        #expect(deliveries.withLock { $0.last?.channelID } == channel)
        #expect(deliveries.withLock { $0.last?.token } == nil)

        try await client.deleteChannel(channel)
        #expect(try await client.listChannels() == [])
        let after = await client.send(APNsPush(channelID: channel, bundleID: APNsHarness.bundleID, payload: payload))
        #expect(after.result?.reason == .channelNotRegistered)
        await #expect(throws: APNsChannelError.self) { _ = try await client.readChannel(channel) }
    }

    @Test("a no-storage channel needs apns-expiration 0; oversize and unknown channels are refused")
    func broadcastRules() async throws {
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.shutdown() }
        let channel = try await client.createChannel(policy: .noMessageStored)
        let payload = try LiveActivityPayload(event: .update, timestamp: 1, contentState: ["s": 1]).encoded()
        let nonzero = await client.send(
            APNsPush(channelID: channel, bundleID: APNsHarness.bundleID, payload: payload, expiration: 100))
        #expect(nonzero.result?.reason == .badExpirationDate)
        let zero = await client.send(
            APNsPush(channelID: channel, bundleID: APNsHarness.bundleID, payload: payload, expiration: 0))
        #expect(zero.status == 200)
        let unknown = Data(repeating: 1, count: 16).base64EncodedString()
        #expect(
            await client.send(APNsPush(channelID: unknown, bundleID: APNsHarness.bundleID, payload: payload)).result?
                .reason == .channelNotRegistered)

        let raw = try harness.rawClient()
        defer { raw.shutdown() }
        let jwt = try harness.providerToken().current()
        let big = try await raw.execute(
            HTTP2Request(
                method: "POST", path: "/4/broadcasts/apps/\(APNsHarness.bundleID)",
                headers: [
                    HTTPHeader("authorization", "bearer \(jwt)"), HTTPHeader("apns-push-type", "liveactivity"),
                    HTTPHeader("apns-channel-id", channel), HTTPHeader("apns-expiration", "0"),
                ], body: Array(repeating: 0x20, count: 5121)))
        #expect(big.status == 413)
        let missing = try await raw.execute(
            HTTP2Request(
                method: "POST", path: "/4/broadcasts/apps/\(APNsHarness.bundleID)",
                headers: [HTTPHeader("authorization", "bearer \(jwt)"), HTTPHeader("apns-push-type", "liveactivity")],
                body: payload))
        #expect(missing.apnsReason == "MissingChannelId")
        let suffixed = try await raw.execute(
            HTTP2Request(
                method: "POST", path: "/4/broadcasts/apps/\(APNsHarness.bundleID).push-type.liveactivity",
                headers: [
                    HTTPHeader("authorization", "bearer \(jwt)"), HTTPHeader("apns-push-type", "liveactivity"),
                    HTTPHeader("apns-channel-id", channel),
                ],
                body: payload))
        #expect(suffixed.apnsReason == "TopicDisallowed")
        let badCreate = try await raw.execute(
            HTTP2Request(
                method: "POST", path: "/1/apps/\(APNsHarness.bundleID)/channels",
                headers: [HTTPHeader("authorization", "bearer \(jwt)")],
                body: Array(#"{"message-storage-policy":1}"#.utf8)))
        #expect(badCreate.apnsReason == "BadRequestParams")
    }
}
