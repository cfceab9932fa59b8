import DropTrackStore
import Foundation

/// The attempts a webhook worker has open, each with its deadline: what decides whether an answer still
/// counts. An attempt holds its slot until its transport calls back; once past its deadline it is settled
/// as failed, and an answer that comes after that, 2xx or not, is dropped.
struct WebhookAttempts {
    struct Attempt {
        var delivery: WebhookDelivery
        var deadline: Date
        /// Settled by the deadline before the transport answered.
        var expired = false
    }

    private(set) var open: [Int: Attempt] = [:]
    private var nextID = 0

    /// Attempts whose transport has not called back, expired ones included: each holds a slot.
    var count: Int { open.count }

    /// The earliest deadline of an attempt not yet settled.
    var nextDeadline: Date? { open.values.filter { !$0.expired }.map(\.deadline).min() }

    /// Opens an attempt at `delivery`; returns its id for `answer`.
    mutating func begin(_ delivery: WebhookDelivery, deadline: Date) -> Int {
        nextID += 1
        open[nextID] = Attempt(delivery: delivery, deadline: deadline)
        return nextID
    }

    /// Closes attempt `id` with `response`, come at `now`: what to record, or nil when nothing is (the
    /// deadline settled it already). An answer after the deadline is a timeout, whatever its status.
    mutating func answer(_ id: Int, _ response: WebhookResponse, at now: Date, timeout: WebhookResponse)
        -> WebhookResponse?
    {
        guard let attempt = open.removeValue(forKey: id), !attempt.expired else { return nil }
        return now > attempt.deadline ? timeout : response
    }

    /// The deliveries of the attempts past their deadline at `now` and not settled yet, marked settled:
    /// the caller records each as failed.
    mutating func expire(at now: Date) -> [WebhookDelivery] {
        var overdue: [WebhookDelivery] = []
        for (id, attempt) in open where !attempt.expired && now > attempt.deadline {
            open[id]?.expired = true
            overdue.append(attempt.delivery)
        }
        return overdue.sorted { $0.id < $1.id }
    }
}
