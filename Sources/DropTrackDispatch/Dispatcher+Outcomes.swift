import DropTrackContract
import DropTrackCore
import DropTrackStore
import Foundation

// What every finished send records, whether it came from an outbox row or a fan-out range batch.
extension Dispatcher {
    /// Counts the send in `droptrack_sends_total` and, when the provider answered, its round trip in
    /// `droptrack_send_latency_seconds`; returns the round trip in seconds.
    func countSend(work: Work, result: SendResult) -> Double {
        let latency = Self.seconds(result.latency)
        metrics.increment(
            "droptrack_sends_total",
            [
                "provider": work.provider.rawValue, "outcome": result.isSuccess ? "success" : "failure",
                "reason": result.reason,
            ])
        if result.status > 0 {
            metrics.observe("droptrack_send_latency_seconds", latency, ["provider": work.provider.rawValue])
        }
        return latency
    }

    /// The provider declared the send's token dead: invalidates it with the provider's reason, tells the
    /// app's webhooks and counts it. A broadcast channel is no token, so there is nothing to invalidate.
    func invalidateDeadToken(_ tx: any StoreTransaction, work: Work, result: SendResult, now: Date) throws {
        let entry = work.entry
        guard let fingerprint = entry.destination.tokenFingerprint else { return }
        try tx.invalidateTokens(app: entry.app, fingerprints: [fingerprint], reason: .provider(result.reason), at: now)
        try webhooks.record(
            tx, app: entry.app, activityId: entry.activityId, event: .tokenInvalidated,
            data: [
                "fingerprints": .array([.string(fingerprint.value)]), "reason": .string(result.reason),
                "by": .string(work.provider.rawValue),
            ], at: now)
        metrics.increment("droptrack_tokens_invalidated_total", ["reason": result.reason])
    }
}
