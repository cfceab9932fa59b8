import DropTrackCore
import DropTrackStore
import Foundation
import Synchronization

/// One reading of one app's sends, taken every few seconds for the console's plots.
public struct MetricSample: Sendable, Equatable {
    public var at: Date
    /// Sends per second since the previous reading, by outcome (`success`, `failure`).
    public var sendsPerSecond: [String: Double]
    /// The mean fan-out lag of the versions finished since the previous reading, or nil when none were.
    public var fanoutLagSeconds: Double?
    /// Sends waiting in the outbox at the reading.
    public var outboxDepth: Int

    /// A reading with nothing sent, finished or waiting.
    public static func idle(at: Date) -> MetricSample {
        MetricSample(at: at, sendsPerSecond: ["success": 0, "failure": 0], fanoutLagSeconds: nil, outboxDepth: 0)
    }
}

/// Keeps the last hour of `MetricSample`s in a ring (`capacity` readings, `interval` apart), read from
/// the counters the dispatcher keeps (per app, by their `app` label) and the store's `outboxDepthByApp()`.
/// Runs as a service under `serve`.
public final class MetricSampler: Service, Sendable {
    let metrics: MetricsRegistry
    let store: any DeliveryStore
    let clock: any WallClock
    /// Seconds between readings.
    public let interval: TimeInterval
    /// Readings kept: an hour's worth at the default 5 s.
    public let capacity: Int
    /// The replica whose counters these are (its host and process): behind a load balancer each replica
    /// plots its own sends and lag, so the page says which one answered.
    public let replica: String
    private struct Reading {
        var at: Date
        /// Apps with anything sent, finished or waiting; the others read as idle.
        var apps: [String: MetricSample]
    }
    private struct State {
        var readings: [Reading] = []
        var previous: (at: Date, sends: [String: [String: Double]], lags: [String: (sum: Double, count: Int)])?
    }
    private let state = Mutex(State())
    private let stopRequested = Latch<Void>()
    private let stopped = Latch<Void>()

    /// Creates the sampler; nothing is read until `start` or `sample`.
    public init(
        metrics: MetricsRegistry, store: any DeliveryStore, clock: any WallClock, interval: TimeInterval = 5,
        capacity: Int = 720, replica: String = "\(ProcessInfo.processInfo.hostName), process \(getpid())"
    ) {
        self.replica = replica
        self.metrics = metrics
        self.store = store
        self.clock = clock
        self.interval = max(0.05, interval)
        self.capacity = max(2, capacity)
    }

    public var serviceName: String { "console-sampler" }

    /// Reads every `interval` on its own thread; between readings it waits on a latch, so shutdown is at once.
    public func start() {
        let thread = Thread { [self] in
            while stopRequested.resolved == nil {
                sample()
                _ = stopRequested.wait(timeout: .milliseconds(Int(interval * 1000)))
            }
            stopped.resolve(())
        }
        thread.name = "console-sampler"
        thread.start()
    }

    public func shutdown(deadline: ContinuousClock.Instant) -> Bool {
        stopRequested.resolve(())
        return stopped.wait(until: deadline) != nil
    }

    /// Takes one reading now (the timer calls this; tests call it with their own clock).
    public func sample() {
        let now = clock.now()
        let sends = metrics.counterTotals("droptrack_sends_total", by: "outcome", per: "app")
        let lags = metrics.histogramTotals("droptrack_fanout_lag_seconds", per: "app")
        let depths = (try? store.transaction { try $0.outboxDepthByApp() }) ?? [:]
        state.withLock { state in
            defer { state.previous = (now, sends, lags) }
            // The first reading only sets the baseline: rates need two.
            guard let previous = state.previous else { return }
            let seconds = max(0.001, now.timeIntervalSince(previous.at))
            var apps: [String: MetricSample] = [:]
            for app in Set(sends.keys).union(lags.keys).union(depths.keys) {
                var sample = MetricSample.idle(at: now)
                let sent = sends[app] ?? [:]
                for outcome in Set(sent.keys).union(["success", "failure"]) {
                    let was = previous.sends[app]?[outcome] ?? 0
                    sample.sendsPerSecond[outcome] = max(0, (sent[outcome] ?? 0) - was) / seconds
                }
                let lag = lags[app] ?? (0, 0)
                let was = previous.lags[app] ?? (0, 0)
                let finished = lag.count - was.count
                sample.fanoutLagSeconds = finished > 0 ? (lag.sum - was.sum) / Double(finished) : nil
                sample.outboxDepth = depths[app] ?? 0
                apps[app] = sample
            }
            state.readings.append(Reading(at: now, apps: apps))
            if state.readings.count > capacity { state.readings.removeFirst(state.readings.count - capacity) }
        }
    }

    /// One app's readings kept, oldest first.
    public func samples(app: String) -> [MetricSample] {
        state.withLock { $0.readings.map { $0.apps[app] ?? .idle(at: $0.at) } }
    }
}
