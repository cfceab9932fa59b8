import DropTrackContract
import DropTrackCore
import DropTrackStore
import DropTrackWire
import Foundation
import Synchronization

/// The outbox worker. It claims due rows app by app (a fixed batch per app per round, so one
/// app's 100k fan-out cannot stall another app's single update), reads each activity's newest
/// version at send time, sends with bounded concurrency, and writes outcomes back in batches:
/// done, retry later, token dead, or dead letter. Claims are leases in the store, so rows of a
/// worker that dies come back to any worker when the lease ends.
public final class Dispatcher: Service {
    /// One send's context, from its claim to its outcome. A class: it travels through the launch, the
    /// completion queue and the flush, and a copy of a reference is one retain where a copy of these
    /// fields was one per string (a tenth of the dispatcher's samples in a 100k fan-out).
    final class Work: Sendable {
        let entry: OutboxEntry
        let version: Int64
        let event: String
        let priority: Int
        let provider: TimelineProvider
        let activityUpdatedAt: Date
        /// A push-to-start, or the FCM message that starts the activity: sent at most once.
        let startsActivity: Bool
        /// The fan-out range batch it belongs to (`State.rangeBatches`); nil for an outbox row.
        let rangeBatch: Int?

        init(
            entry: OutboxEntry, version: Int64, event: String, priority: Int, provider: TimelineProvider,
            activityUpdatedAt: Date, startsActivity: Bool = false, rangeBatch: Int? = nil
        ) {
            self.entry = entry
            self.version = version
            self.event = event
            self.priority = priority
            self.provider = provider
            self.activityUpdatedAt = activityUpdatedAt
            self.startsActivity = startsActivity
            self.rangeBatch = rangeBatch
        }
    }

    struct Completion: Sendable {
        var work: Work
        var result: SendResult
    }

    struct State {
        var inFlight = 0
        var completions: [Completion] = []
        var stopping = false
        var stopped = false
        var signalled = false
        var sent = 0
        var rotation = 0
        /// Per app and provider (`app/apns`): whether sends go out, wait, or probe.
        var circuits: [String: ProviderCircuit] = [:]
        /// Fan-out range batches in flight, by id.
        var rangeBatches: [Int: RangeBatch] = [:]
        var nextRangeBatch = 0
    }

    let store: any DeliveryStore
    let configuration: ServerConfiguration
    let transport: any PushTransport
    let clock: any WallClock
    let metrics: MetricsRegistry
    let events: EventBus
    let logger: Logger
    let owner: String
    let retry: RetryPolicy
    /// Outcomes the app's webhooks hear about, queued with the outcome.
    let webhooks: WebhookOutcomes
    /// Told of every write the dispatcher's transactions commit or the store refuses (readiness).
    let writeHealth: StoreWriteHealth
    let state = Mutex(State())
    private let stoppedLatch = Latch<Void>()
    private let condition = NSCondition()

    /// Creates a worker; `owner` names its claims (unique per process); `webhookQueued` runs after an
    /// outcome's transaction queued webhook deliveries and committed.
    public init(
        store: any DeliveryStore, configuration: ServerConfiguration, transport: any PushTransport,
        clock: any WallClock,
        metrics: MetricsRegistry, events: EventBus, logger: Logger,
        owner: String = "\(ProcessInfo.processInfo.hostName)-\(getpid())-\(UUID().uuidString.prefix(8))",
        webhookQueued: @escaping @Sendable () -> Void = {}, writeHealth: StoreWriteHealth = StoreWriteHealth()
    ) {
        self.writeHealth = writeHealth
        self.store = store
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.metrics = metrics
        self.events = events
        self.logger = logger.with(["component": "dispatcher"])
        self.owner = owner
        webhooks = WebhookOutcomes(configuration: configuration, queued: webhookQueued)
        retry = RetryPolicy(
            maxAttempts: configuration.maxAttempts, maxAge: configuration.maxAgeSeconds,
            base: configuration.backoffBaseSeconds,
            maximum: configuration.backoffMaxSeconds)
        Self.declareMetrics(metrics)
        metrics.declareGauge(
            "droptrack_provider_unreachable",
            help: "1 while an app's provider cannot be reached (its sends wait in the outbox), by app and provider."
        ) { [weak self] in
            guard let self else { return [] }
            return state.withLock { state in
                state.circuits.sorted { $0.key < $1.key }.map { key, circuit in
                    let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
                    return (["app": parts[0], "provider": parts.last ?? ""], circuit.phase == .closed ? 0 : 1)
                }
            }
        }
    }

    static func declareMetrics(_ metrics: MetricsRegistry) {
        metrics.declareCounter("droptrack_sends_total", help: "Send attempts by provider, outcome and reason.")
        metrics.declareCounter("droptrack_retries_total", help: "Sends rescheduled for another attempt.")
        metrics.declareCounter("droptrack_dead_letters_total", help: "Sends given up on.")
        metrics.declareCounter(
            "droptrack_store_errors_total",
            help:
                "Store transactions that failed (the database away, a full disk), by operation: the dispatcher's, each retried, and the API's (`api`), each refused with 503 store_unavailable."
        )
        metrics.declareCounter(
            "droptrack_starts_in_doubt_total",
            help:
                "Starts whose outcome is unknown (a crash, or a connection lost after the request was written); never resent, so no device gets two activities."
        )
        metrics.declareCounter(
            "droptrack_sends_held_total",
            help:
                "Sends kept in the outbox, their attempt given back, while their provider is unreachable, by provider.")
        metrics.declareCounter(
            "droptrack_tokens_invalidated_total", help: "Tokens invalidated by provider answers, by reason.")
        metrics.declareHistogram(
            "droptrack_send_latency_seconds", help: "Provider round trip per send.",
            buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
        metrics.declareHistogram(
            "droptrack_fanout_lag_seconds", help: "From an event accepted to the last send of that version finished.",
            // Fine below 50 ms, where a small fan-out lands and where a p99 target is set; coarse above.
            buckets: [
                0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
                1800,
            ])
    }

    /// Sends in flight now.
    public var inFlight: Int { state.withLock { $0.inFlight } }
    /// Sends finished (any outcome) since start.
    public var finished: Int { state.withLock { $0.sent } }

    /// Starts the worker thread.
    public func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "dispatcher"
        thread.start()
    }

    /// Nudges the worker: work was queued.
    public func wake() {
        condition.lock()
        state.withLock { $0.signalled = true }
        condition.signal()
        condition.unlock()
    }

    /// Stops claiming, waits up to `timeout` for the sends in flight, writes their outcomes, and
    /// returns the number still unfinished (their rows come back after the lease).
    @discardableResult
    public func stop(timeout: Duration = .seconds(10)) -> Int {
        state.withLock { $0.stopping = true }
        wake()
        _ = stoppedLatch.wait(timeout: timeout)
        return state.withLock { $0.inFlight }
    }

    public var serviceName: String { "dispatcher" }

    /// `stop` until `deadline`; false if sends were left unfinished.
    public func shutdown(deadline: ContinuousClock.Instant) -> Bool { stop(timeout: deadline - .now) == 0 }

    /// Outcomes are written in batches of at least this many (or every few milliseconds), and rows
    /// are claimed once this much room is free: one transaction per send would cap the fan-out at the
    /// store's commit rate. A sixteenth of the room, not a quarter: a range batch's room comes back
    /// only as its last answer does, so waiting for a quarter (500 of 2,000) left the window a third
    /// empty when answers take 50 ms (27.3k–28.9k pushes/s against 31.4k–32.4k, 40k at most).
    private var flushBatch: Int { max(1, min(256, configuration.maxInFlight / 8)) }
    private var claimRoom: Int { max(1, min(configuration.claimBatch, configuration.maxInFlight / 16)) }

    private func loop() {
        while true {
            flushCompletions()
            let (stopping, inFlight) = state.withLock { ($0.stopping, $0.inFlight) }
            if stopping && inFlight == 0 {
                flushCompletions()
                state.withLock { $0.stopped = true }
                stoppedLatch.resolve(())
                return
            }
            var claimed = 0
            let room = configuration.maxInFlight - inFlight
            if !stopping && (room >= claimRoom || inFlight == 0) {
                claimed = claimRound(capacity: room)
            }
            if claimed == 0 {
                condition.lock()
                let pending = state.withLock { state -> Bool in
                    let pending = state.signalled || state.completions.count >= flushBatch
                    state.signalled = false
                    return pending
                }
                if !pending {
                    let wait = inFlight > 0 ? 0.005 : (stopping ? 0.01 : 0.25)
                    _ = condition.wait(until: Date().addingTimeInterval(wait))
                }
                condition.unlock()
            }
        }
    }

    /// One round over the apps with due work; returns the rows claimed.
    private func claimRound(capacity: Int) -> Int {
        guard capacity > 0 else { return 0 }
        let now = clock.now()
        let apps: [String]
        do { apps = try store.transaction { try $0.appsWithDueWork(now: now) } } catch {
            logger.error("dispatcher.store_failed", ["error": "\(error)"])
            metrics.increment("droptrack_store_errors_total", ["operation": "find_due_work"])
            return 0
        }
        guard !apps.isEmpty else { return 0 }
        let rotation = state.withLock {
            $0.rotation += 1
            return $0.rotation
        }
        var claimed = 0
        var left = capacity
        for offset in 0..<apps.count where left > 0 {
            let app = apps[(rotation + offset) % apps.count]
            let share = max(1, min(configuration.claimBatch, left / max(1, apps.count - offset)))
            var sends = prepare(app: app, limit: share, now: now)
            // Fan-out ranges take the room the outbox rows left (per-destination rows go first: starts,
            // FCM, retries), up to this app's share of the free room.
            let rangeRoom = max(1, left / max(1, apps.count - offset)) - sends.count
            if rangeRoom > 0 { sends += prepareRanges(app: app, limit: rangeRoom, now: now) }
            claimed += sends.count
            left -= sends.count
            // Counted in flight together, before any can finish: one lock for the claim, not one per send
            // against the connection threads' completions.
            state.withLock { $0.inFlight += sends.count }
            for send in sends { launch(send, app: app) }
        }
        return claimed
    }

    /// Sends one prepared push; the caller has counted it in flight.
    private func launch(_ send: Prepared, app: String) {
        // The completion keeps only the work: the push (its payload and headers) can go once it is written.
        let work = send.work
        let done: @Sendable (SendResult) -> Void = { [self] result in
            let wake = state.withLock {
                $0.completions.append(Completion(work: work, result: result))
                $0.inFlight -= 1
                $0.sent += 1
                return $0.completions.count >= flushBatch || $0.inFlight == 0
            }
            if wake {
                condition.lock()
                condition.signal()
                condition.unlock()
            }
        }
        switch send {
        case .apns(_, let push): transport.send(app: app, apns: push, completion: done)
        case .fcm(_, let message): transport.send(app: app, fcm: message, completion: done)
        }
    }

}
