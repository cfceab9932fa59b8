import DropTrackWire
import Foundation

/// Whether sends to one provider (per app) go out, wait, or probe: a circuit breaker.
///
/// Without it, an outage turned every queued push into its own retry loop: each one used an attempt
/// per failed connection, so pushes were dead-lettered minutes into an outage that `maxAgeSeconds`
/// (an hour) should have covered, and thousands of parked requests held memory and CPU. With it, the
/// first send that cannot reach the provider opens the circuit; sends wait in the outbox (their
/// attempt given back) until one probe at a time gets through, with the wait doubling up to a cap.
/// A value type driven by events, so each transition is tested without a network.
struct ProviderCircuit: Sendable, Equatable {
    /// Where the circuit stands.
    enum Phase: Sendable, Equatable {
        /// Sends go out.
        case closed
        /// The provider was unreachable; sends wait until this time, then one probes.
        case open(until: Date)
        /// One send is out to see whether the provider is back; the rest wait until it reports or
        /// `probeTimeout` passes (a probe's own deadline is shorter, so it always reports first).
        case probing(since: Date)
    }

    /// What to do with one send that is ready to leave.
    enum Permit: Sendable, Equatable {
        /// Send it.
        case send
        /// Send it as the probe.
        case probe
        /// Keep it in the outbox until this time.
        case hold(until: Date)
    }

    /// A change worth a log line.
    enum Transition: Sendable, Equatable {
        /// The provider became unreachable; sends wait this long before a probe.
        case opened(retryIn: TimeInterval)
        /// The provider answered again after being unreachable this long.
        case closed(afterSeconds: TimeInterval)
    }

    private(set) var phase = Phase.closed
    /// Probes that failed in a row (the first failure counts as one).
    private(set) var failures = 0
    private var openedAt: Date? = nil
    let baseDelay: TimeInterval
    let maximumDelay: TimeInterval
    let probeTimeout: TimeInterval
    /// The longest wait between probes, whatever the retry settings say: recovery after an outage
    /// never waits longer than this for the next probe.
    static let longestWait: TimeInterval = 60

    init(baseDelay: TimeInterval = 1, maximumDelay: TimeInterval = longestWait, probeTimeout: TimeInterval = 30) {
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.probeTimeout = probeTimeout
    }

    /// Asked once for each send about to leave.
    mutating func permit(now: Date) -> Permit {
        switch phase {
        case .closed:
            return .send
        case .open(let until):
            guard now >= until else { return .hold(until: until) }
            phase = .probing(since: now)
            return .probe
        case .probing(let since):
            guard now.timeIntervalSince(since) >= probeTimeout else {
                return .hold(until: since.addingTimeInterval(probeTimeout))
            }
            // The probe never reported (its completion was lost): try another.
            phase = .probing(since: now)
            return .probe
        }
    }

    /// Records how a send ended. Any answer, or a request that may have reached the provider, proves
    /// it reachable; a send that never left proves it unreachable. `random` in 0...1 spreads the
    /// waits of many servers.
    mutating func record(_ reach: SendReach, now: Date, random: Double = Double.random(in: 0...1)) -> Transition? {
        switch reach {
        case .answered, .inDoubt:
            guard phase != .closed else { return nil }
            let down = openedAt.map { now.timeIntervalSince($0) } ?? 0
            phase = .closed
            failures = 0
            openedAt = nil
            return .closed(afterSeconds: down)
        case .notSent:
            if case .open(let until) = phase, now < until { return nil }  // a send that was out before it opened
            failures += 1
            let delay = min(maximumDelay, baseDelay * pow(2, Double(min(failures - 1, 30))))
            let jittered = delay * (0.75 + 0.5 * random)
            phase = .open(until: now.addingTimeInterval(jittered))
            if openedAt == nil {
                openedAt = now
                return .opened(retryIn: jittered)
            }
            return nil
        }
    }
}
