import DropTrackCore
import DropTrackStore
import Foundation
import Synchronization

/// Delivers the webhook queue on a thread of its own: claims due deliveries with a lease, POSTs each
/// signed through the transport without waiting for the answer, then deletes it (2xx), reschedules it
/// with capped exponential backoff, or gives it up after `webhookMaxAttempts` (kept as failed, logged).
/// Nothing here runs on the dispatcher's thread, so a receiver that hangs never slows a send; and claims go
/// round the endpoints with at most `maxInFlightPerEndpoint` each in flight, so it never slows another
/// endpoint's deliveries either. Each attempt has a deadline, `webhookTimeoutSeconds` (the transport's),
/// plus a second of grace here: past it the attempt is failed whatever the transport does, and a late 2xx
/// does not count. The lease (the timeout plus 30 s) outlasts both, so no other claim sends it meanwhile.
public final class WebhookWorker: Service {
    struct State {
        var attempts = WebhookAttempts()
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
    let maxInFlightPerEndpoint: Int
    let pollInterval: Duration
    let state = Mutex(State())
    private let condition = NSCondition()

    /// How long past the transport's deadline the worker itself gives an attempt up: room for the
    /// transport's own timeout to arrive first.
    static let graceSeconds = 1.0

    /// Creates a worker; `owner` names its claims (unique per process). `wake()` brings it to what was just
    /// queued; `pollInterval` is how often it looks on its own, for retries come due and leases run out.
    /// At most `maxInFlight` attempts are open at once, `maxInFlightPerEndpoint` of them to one endpoint.
    public init(
        store: any DeliveryStore, configuration: ServerConfiguration, endpoints: WebhookEndpoints,
        signer: any WebhookSigner, transport: any WebhookTransport, clock: any WallClock, metrics: MetricsRegistry,
        logger: Logger, owner: String = "webhooks-\(getpid())-\(UUID().uuidString.prefix(8))",
        maxInFlight: Int = 64, maxInFlightPerEndpoint: Int = 4, pollInterval: Duration = .milliseconds(250)
    ) {
        self.store = store
        self.endpoints = endpoints
        self.signer = signer
        self.transport = transport
        self.clock = clock
        self.metrics = metrics
        self.logger = logger.with(["component": "webhooks"])
        self.owner = owner
        self.maxInFlight = max(1, maxInFlight)
        self.maxInFlightPerEndpoint = max(1, maxInFlightPerEndpoint)
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

    /// Attempts waiting for their transport to call back now.
    public var inFlight: Int { state.withLock { $0.attempts.count } }

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
        while state.withLock({ !$0.stopped || $0.attempts.count > 0 }), ContinuousClock.now < deadline {
            _ = condition.wait(until: Date().addingTimeInterval(0.05))
        }
        condition.unlock()
        return state.withLock { $0.stopped && $0.attempts.count == 0 }
    }

    private func loop() {
        let pollSeconds =
            Double(pollInterval.components.seconds) + Double(pollInterval.components.attoseconds) / 1e18
        while !state.withLock({ $0.stopping }) {
            expireOverdue()
            let room = state.withLock {
                $0.woken = false
                return maxInFlight - $0.attempts.count
            }
            let claimed = room > 0 ? claim(limit: room) : []
            for delivery in claimed { send(delivery) }
            if claimed.count < room || room == 0 {
                condition.lock()
                // A wake during the claim may be for a commit the claim did not see yet.
                if !state.withLock({ $0.stopping || $0.woken }) {
                    let untilDeadline = state.withLock { $0.attempts.nextDeadline }.map {
                        max(0.01, $0.timeIntervalSince(clock.now()))
                    }
                    _ = condition.wait(until: Date().addingTimeInterval(min(pollSeconds, untilDeadline ?? pollSeconds)))
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
            return try store.transaction {
                try $0.claimWebhooks(
                    limit: limit, perEndpoint: maxInFlightPerEndpoint, owner: owner, until: until, now: now)
            }
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
        let now = clock.now()
        let attempt = state.withLock {
            $0.attempts.begin(delivery, deadline: now.addingTimeInterval(timeoutSeconds + Self.graceSeconds))
        }
        let request = WebhookRequest.signed(
            delivery, url: endpoint.url, secret: endpoint.secret, signer: signer, now: now,
            timeoutSeconds: timeoutSeconds)
        transport.post(request) { [self] response in
            let counted = state.withLock {
                $0.attempts.answer(attempt, response, at: clock.now(), timeout: timedOut)
            }
            if let counted { settle(delivery, counted, final: false) }
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
    }

    /// What an attempt past its deadline is recorded as.
    private var timedOut: WebhookResponse { .timedOut(after: timeoutSeconds) }

    /// Fails the attempts past their deadline that the transport has not ended: their slot stays taken
    /// until it does, but the delivery is rescheduled (or given up) now, and a late answer is dropped.
    private func expireOverdue() {
        let overdue = state.withLock { $0.attempts.expire(at: clock.now()) }
        for delivery in overdue {
            logger.warning(
                "webhooks.attempt_overdue",
                ["app": delivery.app, "endpoint": delivery.endpoint, "delivery": delivery.deliveryId])
            settle(delivery, timedOut, final: false)
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
