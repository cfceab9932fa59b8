import DropTrackAPI
import DropTrackConsole
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackStore
import Foundation
import Synchronization

/// The whole dispatch server in one process: the store, the registry, the outbox dispatcher, the
/// scheduler and the HTTP API, started and stopped in the right order.
public final class DropTrackServer: Sendable {
    /// The configuration it runs with.
    public let configuration: ServerConfiguration
    /// The store every part shares.
    public let store: any DeliveryStore
    /// Business operations (what the API calls).
    public let registry: ActivityRegistry
    /// The outbox worker.
    public let dispatcher: Dispatcher
    /// Delivers outcome webhooks; nil when no app has an endpoint.
    public let webhookWorker: WebhookWorker?
    /// Send outcomes, per app (the SSE stream).
    public let events: EventBus
    /// Prometheus metrics.
    public let metrics: MetricsRegistry
    let scheduler: SchedulerLoop
    /// How sends reach APNs and FCM (the demo sends its deliberately broken pushes through it).
    public let transport: any PushTransport
    /// The request handler, for callers in the same process (the demo's simulated apps).
    public let router: APIRouter
    let http: HTTPServer
    let logger: Logger
    /// The operator console's sessions and plot sampler (nil with `console: false`).
    public let console: (sessions: ConsoleSessions, sampler: MetricSampler)?
    private let lifecycle = Lifecycle()
    private let sqliteOwnership: SQLiteOwnership?
    /// Started when `start` runs: the transport, the dispatcher, the scheduler (unless tests drive it), the API.
    private let services = Mutex<ServiceGroup?>(nil)

    enum Phase: Sendable {
        case created, running, draining, stopped
    }

    final class Lifecycle: Sendable {
        let phase = Mutex(Phase.created)
    }

    /// Builds the server. `clock` defaults to the store's clock (`StoreClock`: the machine's,
    /// aligned with PostgreSQL's so replicas agree); a test that injects its own owns time.
    /// `transport` defaults to the real providers (or the emulators the configuration points at);
    /// `store` defaults to the one `configuration.store` names. `eventStreams` limits `GET /v1/events` streams
    /// (by default as the configuration says). `webhookPollInterval` is how often the webhook worker looks
    /// for retries come due; what this server queues it sends at once.
    public init(
        configuration: ServerConfiguration, clock injectedClock: (any WallClock)? = nil, logger: Logger,
        transport: (any PushTransport)? = nil, store: (any DeliveryStore)? = nil, httpThreads: Int = 4,
        heartbeat: Duration = .seconds(5), extensions: [any RouteExtension] = [],
        diagnosisSources: [any DiagnosisSource] = [], eventStreams: EventStreamLimits? = nil,
        webhookPollInterval: Duration = .milliseconds(250)
    ) throws {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        // A store the server opens itself is its own: a second server on the same SQLite file refuses to start.
        if store == nil, configuration.store.hasPrefix("sqlite:") {
            sqliteOwnership = try SQLiteOwnership(databasePath: String(configuration.store.dropFirst("sqlite:".count)))
        } else {
            sqliteOwnership = nil
        }
        let store = try store ?? Self.openStore(configuration.store)
        self.store = store
        let storeClock: StoreClock? =
            injectedClock == nil ? StoreClock(base: SystemWallClock(), store: store, logger: logger) : nil
        storeClock?.synchronizeIfDue()
        let clock: any WallClock = injectedClock ?? storeClock!
        let transport = try transport ?? ProviderTransport(configuration: configuration, logger: logger)
        self.transport = transport
        // Sends and fan-out lag carry an `app` label (summed away in /metrics): each configured app gets the
        // series budget a single app had, so a server with many apps does not fold real series into overflow.
        let metrics = MetricsRegistry(maximumSeriesPerMetric: 1000 * max(1, configuration.apps.count))
        self.metrics = metrics
        let events = EventBus(
            limits: eventStreams
                ?? EventStreamLimits(perKey: configuration.maxEventStreamsPerKey, total: configuration.maxEventStreams))
        self.events = events
        let endpoints = try WebhookEndpoints.load(apps: configuration.apps)
        WebhookWorker.declareMetrics(metrics, store: store)
        let webhookWorker =
            endpoints.isEmpty
            ? nil
            : WebhookWorker(
                store: store, configuration: configuration, endpoints: endpoints, signer: OpenSSLWebhookSigner(),
                transport: CurlWebhookTransport(configuration: configuration), clock: clock, metrics: metrics,
                logger: logger,
                pollInterval: webhookPollInterval)
        self.webhookWorker = webhookWorker
        let webhookQueued: @Sendable () -> Void = { webhookWorker?.wake() }
        let writeHealth = StoreWriteHealth(logger: logger)
        let dispatcher = Dispatcher(
            store: store, configuration: configuration, transport: transport, clock: clock, metrics: metrics,
            events: events, logger: logger, webhookQueued: webhookQueued, writeHealth: writeHealth)
        self.dispatcher = dispatcher
        registry = ActivityRegistry(
            store: store, configuration: configuration, clock: clock, examiner: DoctorDeviceExaminer(),
            channels: transport, wake: { dispatcher.wake() },
            webhookQueued: webhookQueued)
        scheduler = SchedulerLoop(registry: registry, interval: configuration.schedulerIntervalSeconds)
        let lifecycle = self.lifecycle
        var routes = extensions
        if configuration.console {
            let console = (
                sessions: ConsoleSessions(
                    store: store, clock: clock, keyring: APIKeyring(apps: configuration.apps), logger: logger),
                sampler: MetricSampler(metrics: metrics, store: store, clock: clock)
            )
            routes.append(
                ConsoleRoutes(
                    registry: registry, store: store, events: events, apps: configuration.apps,
                    sessions: console.sessions, sampler: console.sampler, clock: clock, logger: logger))
            self.console = console
        } else {
            self.console = nil
        }
        let router = APIRouter(
            registry: registry, configuration: configuration, events: events, metrics: metrics, logger: logger,
            transport: transport, clock: clock, extensions: routes, diagnosisSources: diagnosisSources,
            deviceCredentials: try ES256DeviceCredentials(apps: configuration.apps, clock: clock),
            writeHealth: writeHealth,
            readiness: {
                guard lifecycle.phase.withLock({ $0 }) == .running else { return .notReady("shutting down") }
                do {
                    _ = try store.transaction { try $0.outboxStats() }
                } catch {
                    return .notReady("the store does not answer")
                }
                // Reads pass on a full disk while every write is refused: ask the writes.
                if let refusal = writeHealth.check(probe: { try store.transaction { try $0.probeWrite() } }) {
                    return .notReady(
                        "the store refuses writes since \(refusal.since.formatted(Date.ISO8601FormatStyle())) (\(refusal.operation): \(refusal.error)); free disk space or repair the database: readiness comes back by itself once a write succeeds"
                    )
                }
                return .ready
            })
        self.router = router
        http = HTTPServer(
            handler: router, maxBodyBytes: configuration.maxBodyBytes, threads: httpThreads, heartbeat: heartbeat,
            limits: HTTPServerLimits(
                maximumConnections: configuration.maxConnections,
                maximumConnectionsPerAddress: configuration.maxConnectionsPerClient))
        Self.declareStoreGauges(metrics, store: store, clock: clock)
        metrics.declareGauge(
            "droptrack_clock_offset_seconds",
            help: "The database's clock minus this machine's, as last measured (0 for memory and SQLite)."
        ) { [([:], storeClock?.offsetSeconds ?? 0)] }
        metrics.declareGauge(
            "droptrack_provider_clock_offset_seconds",
            help: "APNs' or Google's clock minus this machine's, from their Date headers (beyond 300 s, tokens fail)."
        ) { transport.providerClockOffsets.sorted { $0.key < $1.key }.map { (["provider": $0.key], $0.value) } }
    }

    /// Opens the store a configuration names: `memory` or `sqlite:PATH`.
    public static func openStore(_ spec: String) throws -> any DeliveryStore {
        if spec == "memory" { return MemoryStore() }
        if spec.hasPrefix("sqlite:") { return try SQLiteStore(path: String(spec.dropFirst("sqlite:".count))) }
        if spec.hasPrefix("postgres://") || spec.hasPrefix("postgresql://") { return try PostgresStore(url: spec) }
        throw ConfigurationError(
            key: "store",
            "store '\(PostgresStore.redactingPassword(in: spec))' is not supported by this build; use sqlite:PATH, memory or postgres://USER:PASSWORD@HOST:PORT/DATABASE"
        )
    }

    static func declareStoreGauges(_ metrics: MetricsRegistry, store: any DeliveryStore, clock: any WallClock) {
        let read: @Sendable () -> OutboxStats? = { try? store.transaction { try $0.outboxStats() } }
        metrics.declareGauge("droptrack_outbox_depth", help: "Sends waiting in the outbox (not dead letters).") {
            [([:], Double(read()?.depth ?? 0))]
        }
        metrics.declareGauge("droptrack_outbox_oldest_age_seconds", help: "Age of the oldest waiting send.") {
            let oldest = read()?.oldestQueuedAt
            return [([:], oldest.map { max(0, clock.now().timeIntervalSince($0)) } ?? 0)]
        }
        metrics.declareGauge("droptrack_outbox_dead_letters", help: "Dead letters kept in the outbox for inspection.") {
            [([:], Double(read()?.deadLetters ?? 0))]
        }
    }

    /// The bound API port once started.
    public var port: Int { http.port }

    /// Starts the dispatcher, the scheduler (unless `scheduler` is false: tests drive it with their own
    /// clock) and the API; returns the bound port.
    @discardableResult
    public func start(scheduler runScheduler: Bool = true) throws -> Int {
        guard let (host, port) = parseListenAddress(configuration.listen) else {
            throw ConfigurationError(
                key: "listen", "listen must be HOST:PORT with an IPv4 address, e.g. 127.0.0.1:8787")
        }
        let api = HTTPService(server: http, host: host, port: port)
        let sampler: [any Service] = console.map { [$0.sampler] } ?? []
        let group = ServiceGroup(
            [TransportService(transport: transport), dispatcher] + (webhookWorker.map { [$0] } ?? [])
                + (runScheduler ? [scheduler] : []) + sampler + [api])
        services.withLock { $0 = group }
        try group.start()
        let bound = http.port
        lifecycle.phase.withLock { $0 = .running }
        logger.notice(
            "server.started",
            [
                "listen": "\(host):\(bound)", "apps": String(configuration.apps.count),
                "store": PostgresStore.redactingPassword(in: configuration.store),
            ])
        return bound
    }

    /// Stops taking requests, lets the sends in flight finish (up to `timeout`), writes their
    /// outcomes, and closes everything. `progress` is told the sends still in flight while it waits.
    /// Returns the sends left unfinished; their outbox rows come back after the lease.
    @discardableResult
    public func shutdown(timeout: Duration = .seconds(20), progress: (@Sendable (Int) -> Void)? = nil) -> Int {
        let previous = lifecycle.phase.withLock { phase -> Phase in
            defer { if phase == .running || phase == .created { phase = .draining } }
            return phase
        }
        guard previous == .running || previous == .created else { return 0 }
        // New connections are refused from here on, while the API's last requests finish.
        http.stopAccepting()
        let ticker = progress.map { progress in
            let dispatcher = self.dispatcher
            let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
            timer.schedule(deadline: .now(), repeating: .milliseconds(100))
            timer.setEventHandler { progress(dispatcher.inFlight) }
            timer.resume()
            return timer
        }
        let group = services.withLock { $0 }
        let late = group?.shutdown(deadline: .now + timeout) ?? []
        ticker?.cancel()
        let unfinished = dispatcher.inFlight
        if !late.isEmpty { logger.warning("server.stop_late", ["services": late.joined(separator: ",")]) }
        lifecycle.phase.withLock { $0 = .stopped }
        logger.notice("server.stopped", ["unfinishedSends": String(unfinished)])
        return unfinished
    }

}

/// The HTTP API as a service: bound on start, drained and closed (within the deadline) on shutdown.
struct HTTPService: Service {
    let server: HTTPServer
    let host: String
    let port: Int

    var serviceName: String { "api" }

    func start() throws { _ = try server.start(host: host, port: port) }

    func shutdown(deadline: ContinuousClock.Instant) -> Bool {
        server.stop(deadline: max(.zero, min(deadline - .now, .seconds(10))))
    }
}

/// The provider connections as a service: opened on first use, closed last so the dispatcher's final
/// sends can finish.
struct TransportService: Service {
    let transport: any PushTransport

    var serviceName: String { "transport" }

    func start() {}

    func shutdown(deadline: ContinuousClock.Instant) -> Bool {
        transport.shutdown()
        return true
    }
}
