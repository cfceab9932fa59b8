import DropTrackContract
import DropTrackWire
import Foundation

/// What to do with a failed send: when to try again, or to give up (a dead letter).
struct RetryPolicy: Sendable {
    var maxAttempts: Int
    var maxAge: TimeInterval
    var base: TimeInterval
    var maximum: TimeInterval

    enum Decision: Equatable {
        case retry(at: Date)
        case deadLetter(String)
    }

    /// Exponential backoff with full jitter, at least `Retry-After` when the provider said so.
    func decide(
        attempts: Int, firstQueuedAt: Date, now: Date, retryAfter: Duration?, random: Double = Double.random(in: 0...1)
    )
        -> Decision
    {
        if attempts >= maxAttempts { return .deadLetter("gave up after \(attempts) attempts") }
        var delay = min(maximum, base * pow(2, Double(max(0, attempts - 1))))
        delay = delay / 2 + delay / 2 * random
        if let retryAfter {
            let seconds = Double(retryAfter.components.seconds) + Double(retryAfter.components.attoseconds) / 1e18
            delay = max(delay, seconds)
        }
        let at = now.addingTimeInterval(delay)
        if at.timeIntervalSince(firstQueuedAt) > maxAge {
            return .deadLetter(
                "still failing after \(Int(saturating: now.timeIntervalSince(firstQueuedAt)))s (max age \(Int(saturating: maxAge))s)"
            )
        }
        return .retry(at: at)
    }
}
