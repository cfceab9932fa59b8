import DropTrackCore
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

@testable import DropTrackDispatch

@Suite("The webhook worker: fair across endpoints, a cap per endpoint, a deadline no answer outlives")
struct WebhookWorkerTests {
    static let stuck = "https://stuck.example/in"
    static let healthy = "https://healthy.example/in"
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A worker over a memory store: app "a"'s endpoint hangs, app "b"'s answers 204.
    func worker(
        _ transport: InMemoryWebhookTransport, store: MemoryStore, clock: ManualWallClock, metrics: MetricsRegistry
    ) -> WebhookWorker {
        var endpoints = WebhookEndpoints()
        endpoints.add(app: "a", id: "ops", url: Self.stuck, secret: Array("s1".utf8))
        endpoints.add(app: "b", id: "ops", url: Self.healthy, secret: Array("s2".utf8))
        return WebhookWorker(
            store: store, configuration: ServerConfiguration(store: "memory", webhookTimeoutSeconds: 5),
            endpoints: endpoints, signer: XORSigner(), transport: transport, clock: clock, metrics: metrics,
            logger: Logger(handler: InMemoryLogHandler()), maxInFlight: 4, maxInFlightPerEndpoint: 2,
            pollInterval: .milliseconds(10))
    }

    func delivery(app: String, activity: String, at offset: Double) -> WebhookDelivery {
        WebhookDelivery(
            app: app, endpoint: "ops", activityId: activity, deliveryId: "\(app)-\(activity)", event: "activity_ended",
            body: "{}", createdAt: start + offset, availableAt: start + offset)
    }

    func pending(_ store: MemoryStore) throws -> [WebhookDelivery] {
        try store.transaction { try $0.webhookDeliveries(limit: 100) }
    }

    @Test("one app's hanging receiver holds its own two slots; another app's delivery goes at once")
    func fairness() throws {
        let store = MemoryStore()
        let clock = ManualWallClock(start + 100)
        let transport = InMemoryWebhookTransport([Self.stuck: .hold])
        let metrics = MetricsRegistry()
        // Ten of app a's, queued first, each about its own activity so that all are due; then one of app b's.
        try store.transaction {
            try $0.enqueueWebhooks(
                (1...10).map { delivery(app: "a", activity: "s\($0)", at: Double($0)) }
                    + [delivery(app: "b", activity: "o1", at: 50)])
        }
        let worker = worker(transport, store: store, clock: clock, metrics: metrics)
        worker.start()
        defer {
            transport.answer(url: Self.stuck, with: .status(204))
            _ = worker.shutdown(deadline: .now + .seconds(5))
        }
        #expect(eventually { metrics.value("droptrack_webhook_deliveries_total", ["result": "delivered"]) == 1 })
        #expect(try pending(store).allSatisfy { $0.app == "a" })
        // Many polls later app a still has exactly its two in flight, and the other eight wait.
        usleep(200_000)
        #expect(transport.held(Self.stuck) == 2)
        #expect(transport.sent.filter { $0.url == Self.stuck }.count == 2)
        #expect(worker.inFlight == 2)
    }

    @Test("past the deadline an attempt is failed whatever the transport does, and its late 2xx does not count")
    func deadline() throws {
        let store = MemoryStore()
        let clock = ManualWallClock(start + 100)
        let transport = InMemoryWebhookTransport([Self.stuck: .hold])
        let metrics = MetricsRegistry()
        try store.transaction { try $0.enqueueWebhooks([delivery(app: "a", activity: "s1", at: 1)]) }
        let worker = worker(transport, store: store, clock: clock, metrics: metrics)
        worker.start()
        defer { _ = worker.shutdown(deadline: .now + .seconds(5)) }
        #expect(eventually { transport.held(Self.stuck) == 1 })
        // webhookTimeoutSeconds (5) and the worker's second of grace: not yet.
        clock.advance(by: 5.9)
        usleep(100_000)
        #expect(metrics.value("droptrack_webhook_deliveries_total", ["result": "retried"]) == 0)
        clock.advance(by: 0.2)
        #expect(eventually { metrics.value("droptrack_webhook_deliveries_total", ["result": "retried"]) == 1 })
        let failed = try #require(try pending(store).first)
        #expect(failed.lastError == "no answer within 5 s (webhookTimeoutSeconds)")
        // Its slot stays taken until the transport calls back; then the late 204 is dropped.
        #expect(worker.inFlight == 1)
        transport.answer(url: Self.stuck, with: .status(204))
        #expect(eventually { worker.inFlight == 0 })
        #expect(metrics.value("droptrack_webhook_deliveries_total", ["result": "delivered"]) == 0)
        #expect(try pending(store).map(\.deliveryId) == ["a-s1"])
    }

    @Test(
        "the attempts' state: an answer within the deadline counts, a late one is a timeout, an expired one is dropped")
    func attempts() {
        let timeout = WebhookResponse.failed("timed out")
        var attempts = WebhookAttempts()
        let first = attempts.begin(delivery(app: "a", activity: "s1", at: 0), deadline: start + 6)
        let second = attempts.begin(delivery(app: "a", activity: "s2", at: 0), deadline: start + 6)
        let third = attempts.begin(delivery(app: "a", activity: "s3", at: 0), deadline: start + 10)
        #expect(attempts.count == 3 && attempts.nextDeadline == start + 6)
        #expect(attempts.answer(first, .status(200), at: start + 5, timeout: timeout) == .status(200))
        #expect(attempts.answer(second, .status(200), at: start + 7, timeout: timeout) == timeout)
        #expect(attempts.expire(at: start + 9).isEmpty)
        #expect(attempts.expire(at: start + 11).map(\.activityId) == ["s3"])
        // Expired once only, and still holding its slot until the transport calls back.
        #expect(attempts.expire(at: start + 12).isEmpty)
        #expect(attempts.count == 1 && attempts.nextDeadline == nil)
        #expect(attempts.answer(third, .status(200), at: start + 12, timeout: timeout) == nil)
        #expect(attempts.count == 0)
    }
}

/// Not HMAC: signatures are not what these tests look at.
private struct XORSigner: WebhookSigner {
    func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] { [message.reduce(0, ^)] }
}
