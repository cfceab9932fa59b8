import DropTrackCore
import DropTrackStore
import Foundation
import Synchronization

/// One reading of the server's health, taken every few seconds for the console's plots.
public struct MetricSample: Sendable, Equatable {
    public var at: Date
    /// Sends per second since the previous reading, by outcome (`success`, `failure`).
    public var sendsPerSecond: [String: Double]
    /// The mean fan-out lag of the versions finished since the previous reading, or nil when none were.
    public var fanoutLagSeconds: Double?
    /// Sends waiting in the outbox at the reading.
    public var outboxDepth: Int
}

/// Keeps the last hour of `MetricSample`s in a ring (`capacity` readings, `interval` apart), read from
/// the counters the dispatcher keeps and the store's `outboxStats()`. Runs as a service under `serve`.
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
    private struct State {
        var samples: [MetricSample] = []
        var previous: (at: Date, sends: [String: Double], lag: (sum: Double, count: Int))?
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
        let sends = metrics.counterTotals("droptrack_sends_total", by: "outcome")
        let lag = metrics.histogramTotals("droptrack_fanout_lag_seconds")
        let depth = (try? store.transaction { try $0.outboxStats() })?.depth ?? 0
        state.withLock { state in
            defer { state.previous = (now, sends, lag) }
            // The first reading only sets the baseline: rates need two.
            guard let previous = state.previous else { return }
            let seconds = max(0.001, now.timeIntervalSince(previous.at))
            var rates: [String: Double] = [:]
            for outcome in Set(sends.keys).union(["success", "failure"]) {
                rates[outcome] = max(0, (sends[outcome] ?? 0) - (previous.sends[outcome] ?? 0)) / seconds
            }
            let finished = lag.count - previous.lag.count
            let meanLag = finished > 0 ? (lag.sum - previous.lag.sum) / Double(finished) : nil
            state.samples.append(
                MetricSample(at: now, sendsPerSecond: rates, fanoutLagSeconds: meanLag, outboxDepth: depth))
            if state.samples.count > capacity { state.samples.removeFirst(state.samples.count - capacity) }
        }
    }

    /// The readings kept, oldest first.
    public var samples: [MetricSample] { state.withLock { $0.samples } }
}
