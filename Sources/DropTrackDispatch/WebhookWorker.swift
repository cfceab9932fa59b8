import DropTrackCore
import DropTrackStore
import Foundation
import Synchronization

/// Delivers the webhook queue on a thread of its own: claims due deliveries with a lease, POSTs each
/// signed through the transport without waiting for the answer, then deletes it (2xx), reschedules it
/// with capped exponential backoff, or gives it up after `webhookMaxAttempts` (kept as failed, logged).
/// Nothing here runs on the dispatcher's thread, so a receiver that hangs never slows a send.
public final class WebhookWorker: Service {
    struct State {
        var inFlight = 0
        var stopping = false
        var stopped = false
        /// A wake came since the last claim began: claim again before sleeping.
        var woken = false
    }

    let store: any DeliveryStore
    let endpoints: WebhookEndpoints
    let signer: any WebhookSigner
    let transport: any WebhookTransport
    let clock: any WallClock
    let metrics: MetricsRegistry
    let logger: Logger
    let owner: String
    let retry: RetryPolicy
    let timeoutSeconds: Double
    let maxInFlight: Int
    let pollInterval: Duration
    let state = Mutex(State())
    private let condition = NSCondition()

    /// Creates a worker; `owner` names its claims (unique per process). `wake()` brings it to what was just
    /// queued; `pollInterval` is how often it looks on its own, for retries come due and leases run out.
    public init(
        store: any DeliveryStore, configuration: ServerConfiguration, endpoints: WebhookEndpoints,
        signer: any WebhookSigner, transport: any WebhookTransport, clock: any WallClock, metrics: MetricsRegistry,
        logger: Logger, owner: String = "webhooks-\(getpid())-\(UUID().uuidString.prefix(8))",
        maxInFlight: Int = 32, pollInterval: Duration = .milliseconds(250)
    ) {
        self.store = store
        self.endpoints = endpoints
        self.signer = signer
        self.transport = transport
        self.clock = clock
        self.metrics = metrics
        self.logger = logger.with(["component": "webhooks"])
        self.owner = owner
        self.maxInFlight = maxInFlight
        self.pollInterval = pollInterval
        timeoutSeconds = configuration.webhookTimeoutSeconds
        // Attempts bound a delivery, not its age: a receiver down for a day still gets what is in the queue.
        retry = RetryPolicy(
            maxAttempts: configuration.webhookMaxAttempts, maxAge: .infinity, base: configuration.backoffBaseSeconds,
            maximum: configuration.backoffMaxSeconds)
        Self.declareMetrics(metrics, store: store)
    }

    /// The webhook metrics, declared by every server whether or not an app has an endpoint, so dashboards and
    /// alerts see a zero rather than a missing series.
    public static func declareMetrics(_ metrics: MetricsRegistry, store: any DeliveryStore) {
        metrics.declareCounter(
            "droptrack_webhook_deliveries_total",
            help: "Webhook delivery attempts by result: delivered, retried, or failed (given up).")
        metrics.declareGauge(
            "droptrack_webhook_queue_depth", help: "Webhook deliveries waiting or in flight, and given up, by state."
        ) {
            guard let stats = try? store.transaction({ try $0.webhookStats() }) else { return [] }
            return [(["state": "pending"], Double(stats.pending)), (["state": "failed"], Double(stats.failed))]
        }
    }

    public var serviceName: String { "webhooks" }

    /// Deliveries waiting for a receiver's answer now.
    public var inFlight: Int { state.withLock { $0.inFlight } }

    /// Starts the worker thread.
    public func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "webhooks"
        thread.start()
    }

    /// Claims at once rather than at the next poll: call it after a transaction that queued deliveries
    /// commits (`StoreTransaction.afterCommit`).
    public func wake() {
        condition.lock()
        state.withLock { $0.woken = true }
        condition.broadcast()
        condition.unlock()
    }

    /// Stops claiming and waits until `deadline` for the answers in flight; rows still out come back after
    /// their lease, to this server or another.
    public func shutdown(deadline: ContinuousClock.Instant) -> Bool {
        condition.lock()
        state.withLock { $0.stopping = true }
        condition.broadcast()
        while state.withLock({ !$0.stopped || $0.inFlight > 0 }), ContinuousClock.now < deadline {
            _ = condition.wait(until: Date().addingTimeInterval(0.05))
        }
        condition.unlock()
        return state.withLock { $0.stopped && $0.inFlight == 0 }
    }

    private func loop() {
        while !state.withLock({ $0.stopping }) {
            let room = state.withLock {
                $0.woken = false
                return maxInFlight - $0.inFlight
            }
            let claimed = room > 0 ? claim(limit: room) : []
            for delivery in claimed { send(delivery) }
            if claimed.count < room || room == 0 {
                condition.lock()
                // A wake during the claim may be for a commit the claim did not see yet.
                if !state.withLock({ $0.stopping || $0.woken }) {
                    let seconds =
                        Double(pollInterval.components.seconds)
                        + Double(pollInterval.components.attoseconds) / 1e18
                    _ = condition.wait(until: Date().addingTimeInterval(seconds))
                }
                condition.unlock()
            }
        }
        condition.lock()
        state.withLock { $0.stopped = true }
        condition.broadcast()
        condition.unlock()
    }

    private func claim(limit: Int) -> [WebhookDelivery] {
        let now = clock.now()
        // The lease outlasts the receiver's timeout, so a slow answer is settled before anyone else tries.
        let until = now.addingTimeInterval(timeoutSeconds + 30)
        do {
            return try store.transaction { try $0.claimWebhooks(limit: limit, owner: owner, until: until, now: now) }
        } catch {
            logger.error("webhooks.claim_failed", ["error": "\(error)"])
            metrics.increment("droptrack_store_errors_total", ["operation": "claim_webhooks"])
            return []
        }
    }

    private func send(_ delivery: WebhookDelivery) {
        guard let endpoint = endpoints.endpoint(app: delivery.app, id: delivery.endpoint) else {
            settle(delivery, .failed("endpoint '\(delivery.endpoint)' is no longer configured"), final: true)
            return
        }
        state.withLock { $0.inFlight += 1 }
        let request = WebhookRequest.signed(
            delivery, url: endpoint.url, secret: endpoint.secret, signer: signer, now: clock.now(),
            timeoutSeconds: timeoutSeconds)
        transport.post(request) { [self] response in
            settle(delivery, response, final: false)
            condition.lock()
            state.withLock { $0.inFlight -= 1 }
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Writes what became of an attempt: delivered, again later, or given up.
    private func settle(_ delivery: WebhookDelivery, _ response: WebhookResponse, final: Bool) {
        let now = clock.now()
        let error: String
        switch response {
        case .status(let code): error = "the receiver answered \(code)"
        case .failed(let why): error = why
        }
        do {
            if response.delivered {
                try store.transaction { try $0.completeWebhook(id: delivery.id, owner: owner) }
                metrics.increment("droptrack_webhook_deliveries_total", ["result": "delivered"])
                return
            }
            let decision =
                final
                ? .deadLetter("not deliverable")
                : retry.decide(
                    attempts: delivery.attempts, firstQueuedAt: delivery.createdAt, now: now, retryAfter: nil)
            switch decision {
            case .retry(let at):
                try store.transaction {
                    try $0.rescheduleWebhook(id: delivery.id, owner: owner, availableAt: at, error: error)
                }
                metrics.increment("droptrack_webhook_deliveries_total", ["result": "retried"])
            case .deadLetter(let why):
                try store.transaction { try $0.failWebhook(id: delivery.id, owner: owner, error: error, at: now) }
                metrics.increment("droptrack_webhook_deliveries_total", ["result": "failed"])
                logger.warning(
                    "webhooks.given_up",
                    [
                        "app": delivery.app, "endpoint": delivery.endpoint, "delivery": delivery.deliveryId,
                        "event": delivery.event, "activityId": delivery.activityId, "why": why, "error": error,
                    ])
            }
        } catch {
            // The row stays claimed; its lease ends and it is tried again.
            logger.error("webhooks.settle_failed", ["error": "\(error)", "delivery": delivery.deliveryId])
            metrics.increment("droptrack_store_errors_total", ["operation": "settle_webhook"])
        }
    }
}
