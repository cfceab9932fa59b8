import DropTrackContract
import DropTrackLive
import DropTrackTesting
import Foundation
import Testing

/// `HTTPDeviceAPI` against the real server: bodies it sends, errors it reads back.
@Suite("HTTPDeviceAPI against the whole server", .serialized)
struct HTTPDeviceAPITests {
    static let facts = DeviceFacts(
        areActivitiesEnabled: true, frequentPushesEnabled: true, osVersion: "18.1", appBuild: "9")

    func api(_ server: ServerHarness, credentials: Collector<String>, _ provide: @escaping @Sendable () -> String)
        -> HTTPDeviceAPI
    {
        HTTPDeviceAPI(baseURL: URL(string: "http://127.0.0.1:\(server.port)/")!, userID: "user-1") {
            let credential = provide()
            credentials.append(credential)
            return credential
        }
    }

    @Test("a refused credential is a 401 with the server's code; the sync asks for a fresh one once and succeeds")
    func refreshAfter401() async throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let asked = Collector<String>()
        let api = api(server, credentials: asked) { asked.all.isEmpty ? "key-expired" : "key-app1" }
        let registration = PushToStartRegistration(
            deviceID: "iphone-h", attributesType: "DeliveryAttributes", token: token(7), environment: .sandbox,
            facts: Self.facts)
        await #expect(throws: DeviceAPIError.self) { try await api.registerPushToStartToken(registration) }
        do {
            try await api.registerPushToStartToken(registration)
            Issue.record("the cached refused credential was used again and accepted")
        } catch {
            #expect(error.status == 401 && error.remedy == .refreshCredential)
        }
        #expect(asked.all == ["key-expired"], "the credential is kept until invalidated")

        let host = InMemoryHost()
        host.issuePushToStart("DeliveryAttributes", token(7))
        let sync = LiveActivitySync(
            host: host, api: api, ledger: InMemoryRegistrationLedger(),
            configuration: LiveActivitySyncConfiguration(deviceID: "iphone-h", environment: .sandbox))
        await sync.start()
        #expect(await waitFor { await !sync.registered(.pushToStart, "DeliveryAttributes").isEmpty })
        #expect(asked.all == ["key-expired", "key-app1"])
        #expect(await sync.history.contains { if case .refreshedCredential = $0 { true } else { false } })
        await sync.stop()
    }

    @Test("the server's 4xx comes back as its code and message, to give up on; GET and DELETE work")
    func errorsAndReads() async throws {
        let server = try ServerHarness()
        defer { server.stop() }
        let api = api(server, credentials: Collector()) { "key-app1" }
        do {
            try await api.registerPushToStartToken(
                PushToStartRegistration(
                    deviceID: "iphone-h", attributesType: "NoSuchAttributes", token: token(8),
                    environment: .sandbox, facts: Self.facts))
            Issue.record("an unknown attributes type was accepted")
        } catch {
            #expect(error.status == 422 && error.remedy == .giveUp && !error.message.isEmpty)
            #expect(!error.description.contains(token(8).map { String(format: "%02x", $0) }.joined()))
        }
        let registration = PushToStartRegistration(
            deviceID: "iphone-h", attributesType: "DeliveryAttributes", token: token(8), environment: .sandbox,
            facts: Self.facts)
        try await api.registerPushToStartToken(registration)
        let start = #"""
            {"activityId":"order-h","userId":"user-1","attributesType":"DeliveryAttributes",
             "attributes":{"orderId":"order-h"},"event":{"type":"delivery.step","data":{"step":"placed"}},
             "alert":{"title":"Order placed"},"idempotencyKey":"start-order-h"}
            """#
        #expect(try server.call("POST", "/v1/activities", start).status == 201)
        #expect(["pending", "active"].contains(try await api.activityState(activityID: "order-h")))
        // Accepted only if the library names the token exactly as the server does.
        try await api.deleteToken(TokenFingerprint(token: token(8)))
        do {
            try await api.deleteToken(TokenFingerprint(token: token(99)))
            Issue.record("a token never registered was deleted")
        } catch {
            #expect(error.status == 404 && error.remedy == .giveUp)
        }
        do {
            _ = try await api.activityState(activityID: "no-such-order")
            Issue.record("an unknown activity was found")
        } catch {
            #expect(error.status == 404)
        }
    }

    @Test("a closed port is a transport error, to retry later")
    func closedPort() async throws {
        let server = try ServerHarness()
        let port = server.port
        server.stop()
        let api = HTTPDeviceAPI(baseURL: URL(string: "http://127.0.0.1:\(port)")!) { "key-app1" }
        do {
            _ = try await api.deviceActivities(deviceID: "iphone-h")
            Issue.record("a closed port answered")
        } catch {
            #expect(error.status == nil && error.code == "transport" && error.remedy == .retryLater)
        }
    }
}
