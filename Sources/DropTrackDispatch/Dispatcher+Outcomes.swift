import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import Foundation

// What every finished send records, whether it came from an outbox row or a fan-out range batch.
extension Dispatcher {
    /// Counts the send in `droptrack_sends_total` and, when the provider answered, its round trip in
    /// `droptrack_send_latency_seconds`; returns the round trip in seconds.
    func countSend(work: Work, result: SendResult) -> Double {
        var tally = SendTally()
        tally.record(app: work.entry.app, provider: work.provider, result: result)
        tally.publish(to: metrics)
        return Self.seconds(result.latency)
    }

    /// Observes each finished fan-out's lag in `droptrack_fanout_lag_seconds`, labelled with its app.
    func observe(_ lags: [FanoutLag]) {
        for lag in lags { metrics.observe("droptrack_fanout_lag_seconds", lag.seconds, ["app": lag.app]) }
    }

    /// The provider declared the send's token dead: notes it in `deadTokens` (the flush invalidates them
    /// all at its transaction's end, `invalidate(_:_:now:)`), tells the app's webhooks and counts it. A
    /// broadcast channel is no token, so there is nothing to invalidate.
    func invalidateDeadToken(
        _ tx: any StoreTransaction, work: Work, result: SendResult, now: Date, into deadTokens: inout DeadTokens
    ) throws {
        let entry = work.entry
        guard let fingerprint = entry.destination.tokenFingerprint else { return }
        deadTokens.add(
            app: entry.app, activityId: entry.activityId, fingerprint: fingerprint,
            reason: .provider(result.reason))
        try webhooks.record(
            tx, app: entry.app, activityId: entry.activityId, event: .tokenInvalidated,
            data: [
                "fingerprints": .array([.string(fingerprint.value)]), "reason": .string(result.reason),
                "by": .string(work.provider.rawValue),
            ], at: now)
        metrics.increment("droptrack_tokens_invalidated_total", ["reason": result.reason])
    }

    /// Invalidates a flush's dead tokens, in `DeadTokens`' order.
    func invalidate(_ deadTokens: DeadTokens, _ tx: any StoreTransaction, now: Date) throws {
        try deadTokens.apply { token in
            try tx.invalidateTokens(app: token.app, fingerprints: [token.fingerprint], reason: token.reason, at: now)
        }
    }
}

/// The dead tokens of one flush, invalidated together in one order: app, activity id, fingerprint.
/// Invalidating a token updates its activity's row in `activity_token_counts` (schema 12 triggers),
/// which stays locked until the flush commits. Taken in the order sends finished, two replicas
/// flushing dead tokens of the same activities could lock those rows in opposite orders and deadlock;
/// in one order they queue instead.
struct DeadTokens {
    struct Token: Equatable {
        var app: String
        var activityId: String
        var fingerprint: Fingerprint
        var reason: InvalidationReason
    }

    private var tokens: [Token] = []

    mutating func add(app: String, activityId: String, fingerprint: Fingerprint, reason: InvalidationReason) {
        tokens.append(Token(app: app, activityId: activityId, fingerprint: fingerprint, reason: reason))
    }

    /// The tokens in the order they are invalidated, each once (the first reason it was given).
    var ordered: [Token] {
        var seen = Set<String>()
        return
            tokens
            .filter { seen.insert($0.app + "\u{1F}" + $0.fingerprint.value).inserted }
            .sorted {
                ($0.app, $0.activityId, $0.fingerprint.value) < ($1.app, $1.activityId, $1.fingerprint.value)
            }
    }

    func apply(_ invalidate: (Token) throws -> Void) rethrows {
        for token in ordered { try invalidate(token) }
    }
}

/// How long an app's version took from its event's acceptance to its last send's outcome.
struct FanoutLag {
    var app: String
    var seconds: Double
}

/// What finished sends add to `droptrack_sends_total` and `droptrack_send_latency_seconds`, gathered
/// so that a fan-out's outcomes reach the registry once per series per flush: per send, the two
/// metrics cost a lock and the hashing of their label dictionaries each, about a tenth of the
/// server's CPU in a 100k fan-out.
struct SendTally {
    private struct Series: Hashable {
        var app: String
        var provider: TimelineProvider
        var success: Bool
        var reason: String
    }

    private var sends: [Series: Int] = [:]
    private var latencies: [TimelineProvider: [Double]] = [:]

    /// Counts a send, and its round trip when the provider answered.
    mutating func record(app: String, provider: TimelineProvider, result: SendResult) {
        sends[Series(app: app, provider: provider, success: result.isSuccess, reason: result.reason), default: 0] += 1
        if result.status > 0 { latencies[provider, default: []].append(Dispatcher.seconds(result.latency)) }
    }

    func publish(to metrics: MetricsRegistry) {
        for (series, count) in sends {
            metrics.increment(
                "droptrack_sends_total",
                [
                    "app": series.app, "provider": series.provider.rawValue,
                    "outcome": series.success ? "success" : "failure", "reason": series.reason,
                ], by: Double(count))
        }
        for (provider, values) in latencies {
            metrics.observe("droptrack_send_latency_seconds", values, ["provider": provider.rawValue])
        }
    }
}
