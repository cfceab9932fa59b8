import DropTrackContract
import Foundation

/// Exponential backoff with jitter for calls that can succeed later (429, 5xx, no network).
///
/// The delay before retry `n` (0-based) is `min(maximum, initial × 2ⁿ)`, of which the first half is
/// fixed and the second half scaled by a jitter in 0…1, so phones that lost the server together do not
/// come back together. A server's `Retry-After` is honoured when longer.
@available(iOS 16.0, *)
public struct RetryPolicy: Sendable, Equatable {
    public var initialDelay: Duration
    public var maximumDelay: Duration

    public init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(300)) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The delay before retry `attempt`, with `jitter` in 0…1 (1 gives the full exponential delay).
    public func delay(attempt: Int, jitter: Double, retryAfter: Double? = nil) -> Duration {
        let exponential = initialDelay * Double(1 << min(attempt, 30))
        let capped = min(exponential, maximumDelay)
        let jittered = capped * 0.5 + capped * (0.5 * min(max(jitter, 0), 1))
        guard let retryAfter else { return jittered }
        return max(jittered, .milliseconds(Int64(saturating: retryAfter * 1000)))
    }
}
