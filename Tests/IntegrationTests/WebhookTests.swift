import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackEmulators
import DropTrackModel
import DropTrackRuntime
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

@Suite("Outcome webhooks: signed, retried from a durable queue, in order per activity, never in the way of a send")
struct WebhookTests {
    static let secret = "whsec_test_0123456789abcdef"

    /// A 0600 secret file in a fresh directory, and the configuration tweak that adds the endpoint to app1.
    static func endpoint(_ url: String, events: [String]? = nil) throws -> (inout ServerConfiguration) -> Void {
        let file = makeTemporaryDirectory("webhook") + "/hooks.secret"
        try PrivateFile.write(secret + "\n", to: file)
        return { configuration in
            configuration.allowLoopbackWebhooks = true
            configuration.apps[0].webhooks = [.init(id: "ops", url: url, secretFile: file, events: events)]
        }
    }

    func dismiss(_ server: ServerHarness, activity: String, device: String, reason: String) throws {
        _ = try server.registry.reportLifecycle(
            app: "app1", activityId: activity, ReportLifecycle(deviceId: device, state: .dismissed, reason: reason))
    }

    @Test("a dead letter and a device's dismissal arrive signed, with fingerprints and never a raw token")
    func signedOutcomes() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        let hook = try Self.endpoint(receiver.url)
        let server = try ServerHarness(deviceKeys: true) {
            hook(&$0)
            $0.maxAttempts = 1
        }
        defer { server.stop() }
        #expect(try server.call("POST", "/v1/activities", start("order-a", user: "uA")).status == 201)
        let credential = try server.credential()
        let token = APNsHarness.randomToken()
        let registered = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-a","deviceId":"dA","token":"\#(token)","environment":"sandbox"}"#, key: credential)
        #expect(registered.status == 201)
        server.apns.emulator.setFaults([APNsFault(kind: .internalServerError, token: token, times: 1)])
        let update = #"{"type":"delivery.step","data":{"step":"picked_up"}}"#
        #expect(try server.call("POST", "/v1/activities/order-a/events", update).status == 200)
        try server.drain()
        #expect(eventually { receiver.delivered.contains { $0.event == "dead_letter" } })
        let report = try server.call(
            "POST", "/v1/activities/order-a/lifecycle", #"{"deviceId":"dA","state":"dismissed","reason":"swiped"}"#,
            key: credential)
        #expect(report.status == 200)
        #expect(eventually { Set(receiver.delivered.map(\.event)).isSuperset(of: ["activity_dismissed"]) })

        let received = receiver.received
        #expect(!received.isEmpty && received.allSatisfy { $0.signatureValid })
        // A wrong secret must not verify: the check can fail.
        #expect(
            !WebhookReceiver.verify(
                received[0].headers["droptrack-signature"] ?? "", body: received[0].body, secret: Array("wrong".utf8)))
        for delivery in received {
            #expect(delivery.json["id"]?.stringValue == delivery.deliveryId)
            #expect(delivery.json["type"]?.stringValue == delivery.event)
            #expect(delivery.json["app"]?.stringValue == "app1")
            #expect(delivery.json["activityId"]?.stringValue == "order-a")
            #expect(delivery.json["occurredAt"]?.stringValue != nil)
            #expect(!String(decoding: delivery.body, as: UTF8.self).contains(token))
        }
        let deadLetter = received.first { $0.event == "dead_letter" }
        #expect(deadLetter?.json["data"]?["destination"]?.stringValue == Fingerprint(of: token).value)
        let dismissed = received.first { $0.event == "activity_dismissed" }
        #expect(dismissed?.json["data"]?["deviceId"]?.stringValue == "dA")
        #expect(dismissed?.json["data"]?["reason"]?.stringValue == "swiped")
        #expect(server.metrics.value("droptrack_webhook_deliveries_total", ["result": "delivered"]) >= 2)
    }

    @Test("a delivery leaves when its outcome commits, from the API or the dispatcher, not at the next poll")
    func wokenOnCommit() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        let hook = try Self.endpoint(receiver.url, events: ["activity_ended", "dead_letter"])
        // The worker looks on its own only every ten minutes: what arrives within seconds came from a wake.
        let server = try ServerHarness(deviceKeys: true, webhookPollInterval: .seconds(600)) {
            hook(&$0)
            $0.maxAttempts = 1
        }
        defer { server.stop() }
        #expect(try server.call("POST", "/v1/activities", start("order-w", user: "uA")).status == 201)
        #expect(try server.call("POST", "/v1/activities/order-w/end", "{}").status == 200)
        #expect(eventually { receiver.delivered.map(\.event) == ["activity_ended"] })

        #expect(try server.call("POST", "/v1/activities", start("order-x", user: "uA")).status == 201)
        let token = APNsHarness.randomToken()
        let registered = try server.call(
            "POST", "/v1/tokens/activity",
            #"{"activityId":"order-x","deviceId":"dA","token":"\#(token)","environment":"sandbox"}"#,
            key: try server.credential())
        #expect(registered.status == 201)
        server.apns.emulator.setFaults([APNsFault(kind: .internalServerError, token: token, times: 1)])
        let update = #"{"type":"delivery.step","data":{"step":"picked_up"}}"#
        #expect(try server.call("POST", "/v1/activities/order-x/events", update).status == 200)
        #expect(eventually { receiver.delivered.map(\.event) == ["activity_ended", "dead_letter"] })
    }

    @Test("a shared activity's end names its audience, with no user, where a one-user activity names its user")
    func sharedActivityEnded() throws {
        let receiver = try WebhookReceiver(secret: Self.secret)
        defer { receiver.stop() }
        let hook = try Self.endpoint(receiver.url, events: ["activity_ended"])
        let server = try ServerHarness { hook(&$0) }
        defer { server.stop() }
        let shared = start("match-1", user: "uA").replacingOccurrences(
            of: #""userId":"uA""#, with: #""audience":{"userIds":["uA","uB"]}"#)
        #expect(try server.call("POST", "/v1/activities", shared).status == 201)
        #expect(try server.call("POST", "/v1/activities", start("order-1", user: "uA")).status == 201)
        for activity in ["match-1", "order-1"] {
            #expect(try server.call("POST", "/v1/activities/\(activity)/end", "{}").status == 200)
        }
        #expect(eventually { receiver.delivered.count == 2 })
        let ended = Dictionary(
            receiver.delivered.map { ($0.json["activityId"]?.stringValue ?? "", $0.json["data"] ?? .null) },
            uniquingKeysWith: { first, _ in first })
        #expect(ended["match-1"]?["userId"] == .null)
        #expect(ended["match-1"]?["audience"]?["kind"]?.stringValue != nil, "\(ended["match-1"] ?? .null)")
        #expect(ended["order-1"]?["userId"]?.stringValue == "uA")
        #expect(ended["order-1"]?["audience"] == .null)
    }

    @Test("a receiver answering 503 gets each delivery again until it is back, in order per activity")
    func retriedInOrder() throws {
        let receiver = try WebhookReceiver(secret: Self.secret, mode: .refuse(503))
        defer { receiver.stop() }
        let hook = try Self.endpoint(receiver.url, events: ["activity_dismissed"])
        let server = try ServerHarness(tweak: hook)
        defer { server.stop() }
        _ = try server.registry.startActivity(app: "app1", body: server.json(start("order-r", user: "u1")))
        for index in 1...4 { try dismiss(server, activity: "order-r", device: "d\(index)", reason: "r\(index)") }
        #expect(eventually { receiver.received.filter { $0.answered == 503 }.count >= 3 })
        // Down: only the first of the activity was tried; the rest wait behind it.
        #expect(Set(receiver.received.map { $0.json["data"]?["reason"]?.stringValue }) == ["r1"])
        receiver.set(.accept)
        #expect(eventually(timeout: .seconds(10)) { receiver.delivered.count == 4 })
        #expect(receiver.delivered.map { $0.json["data"]?["reason"]?.stringValue } == ["r1", "r2", "r3", "r4"])
        #expect(receiver.received.allSatisfy { $0.signatureValid })
        // The retries carried the same delivery id: the receiver can drop a duplicate.
        #expect(Set(receiver.received.filter { $0.answered == 503 }.map(\.deliveryId)).count == 1)
        #expect(server.metrics.value("droptrack_webhook_deliveries_total", ["result": "retried"]) >= 3)
        #expect(eventually { (try? server.store.transaction { try $0.webhookStats() }.pending) == 0 })
    }

    @Test(
        "a receiver that stays down: given up after webhookMaxAttempts, kept as failed, one warning, no secret logged")
    func givenUp() throws {
        let receiver = try WebhookReceiver(secret: Self.secret, mode: .refuse(500))
        defer { receiver.stop() }
        let hook = try Self.endpoint(receiver.url)
        let server = try ServerHarness {
            hook(&$0)
            $0.webhookMaxAttempts = 2
        }
        defer { server.stop() }
        _ = try server.registry.startActivity(app: "app1", body: server.json(start("order-g", user: "u1")))
        try dismiss(server, activity: "order-g", device: "g1", reason: "gone")
        #expect(eventually { (try? server.store.transaction { try $0.webhookStats() }.failed) == 1 })
        #expect(receiver.received.count == 2)
        #expect(server.metrics.value("droptrack_webhook_deliveries_total", ["result": "failed"]) == 1)
        let kept = try server.store.transaction { try $0.webhookDeliveries(limit: 10) }
        #expect(kept.count == 1 && kept.first?.lastError == "the receiver answered 500")
        let warnings = server.logs.entries.filter { $0.message == "webhooks.given_up" }
        #expect(warnings.count == 1 && warnings.first?.level == .warning)
        #expect(warnings.first?.metadata["endpoint"] == "ops")
        #expect(!server.logs.entries.contains { "\($0.metadata)".contains(Self.secret) })
    }

    @Test("a receiver that never answers does not slow a send: the outbox drains meanwhile")
    func hangingReceiver() throws {
        let receiver = try WebhookReceiver(secret: Self.secret, mode: .hang)
        defer {
            receiver.set(.accept)
            receiver.stop()
        }
        let hook = try Self.endpoint(receiver.url)
        let server = try ServerHarness {
            hook(&$0)
            $0.webhookTimeoutSeconds = 30
        }
        defer { server.stop() }
        _ = try server.registry.startActivity(app: "app1", body: server.json(start("order-h", user: "u1")))
        for index in 1...3 { try dismiss(server, activity: "order-h", device: "h\(index)", reason: "r\(index)") }
        #expect(eventually { server.webhookInFlight >= 1 })
        let tokens = (1...20).map { _ in APNsHarness.randomToken() }
        for (index, token) in tokens.enumerated() {
            _ = try server.registry.registerToken(
                app: "app1", kind: .activity,
                body: server.json(
                    #"{"activityId":"order-h","deviceId":"x\#(index)","token":"\#(token)","environment":"sandbox"}"#))
        }
        let started = ContinuousClock.now
        _ = try server.registry.applyEvent(
            app: "app1", activityId: "order-h",
            body: server.json(#"{"type":"delivery.step","data":{"step":"confirmed"}}"#))
        try server.drain(timeout: .seconds(5))
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(tokens.allSatisfy { server.apns.emulator.latestAccepted(forToken: $0) != nil })
        #expect(receiver.delivered.isEmpty)
    }

    @Test("the queue survives a restart over the same SQLite file: stopped undelivered, delivered after")
    func survivesRestart() throws {
        // A port that is free now and closed while the first server runs.
        let probe = try WebhookReceiver(secret: Self.secret)
        let port = probe.port
        probe.stop()
        let path = makeTemporaryDirectory("webhook-restart") + "/droptrack.sqlite"
        let hook = try Self.endpoint("http://127.0.0.1:\(port)/hooks")
        let first = try ServerHarness(store: try SQLiteStore(path: path), tweak: hook)
        _ = try first.registry.startActivity(app: "app1", body: first.json(start("order-k", user: "u1")))
        try dismiss(first, activity: "order-k", device: "k1", reason: "before")
        #expect(eventually { first.metrics.value("droptrack_webhook_deliveries_total", ["result": "retried"]) >= 1 })
        first.stop()
        let left = try SQLiteStore(path: path).transaction { try $0.webhookStats() }
        #expect(left.pending == 1)

        let receiver = try WebhookReceiver(secret: Self.secret, port: port)
        defer { receiver.stop() }
        let second = try ServerHarness(store: try SQLiteStore(path: path), tweak: hook)
        defer { second.stop() }
        #expect(eventually(timeout: .seconds(10)) { receiver.delivered.count == 1 })
        #expect(receiver.delivered.first?.json["data"]?["reason"]?.stringValue == "before")
        #expect(receiver.received.allSatisfy { $0.signatureValid })
    }
}

extension ServerHarness {
    /// Webhook deliveries waiting for the receiver's answer.
    var webhookInFlight: Int { server.webhookWorker?.inFlight ?? 0 }
}
