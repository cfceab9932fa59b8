import DropTrackContract
import DropTrackCore
import DropTrackStore
import DropTrackWire
import Foundation
import Synchronization

/// The two rules that depend on whether a send reached its provider: a start is sent at most once,
/// and an outage costs time (`maxAgeSeconds`), never attempts.
extension Dispatcher {
    static func circuitKey(app: String, provider: TimelineProvider) -> String { app + "/" + provider.rawValue }

    /// Lets each prepared send through its provider's circuit, or keeps it in the outbox (its claim's
    /// attempt given back) until the circuit lets a probe out. Called inside the claim transaction.
    func admit(_ prepared: [Prepared], app: String, now: Date, _ tx: any StoreTransaction) throws -> [Prepared] {
        guard !prepared.isEmpty else { return prepared }
        var admitted: [Prepared] = []
        var held: [Date: [Int64]] = [:]
        var heldByProvider: [String: Int] = [:]
        state.withLock { state in
            for send in prepared {
                let key = Self.circuitKey(app: app, provider: send.work.provider)
                guard state.circuits[key] != nil else {
                    admitted.append(send)
                    continue
                }
                switch state.circuits[key]!.permit(now: now) {
                case .send, .probe:
                    admitted.append(send)
                case .hold(let until):
                    held[until, default: []].append(send.work.entry.id)
                    heldByProvider[send.work.provider.rawValue, default: 0] += 1
                }
            }
        }
        for (until, ids) in held {
            try tx.releaseUnsent(
                ids: ids, owner: owner, availableAt: until,
                error: "held: the provider was unreachable at the last try; a probe goes first")
        }
        for (provider, count) in heldByProvider {
            metrics.increment("droptrack_sends_held_total", ["provider": provider], by: Double(count))
        }
        return admitted
    }

    /// Feeds a finished send to its provider's circuit; logs when the provider becomes unreachable or
    /// reachable again. Returns when sends to it may go next (nil when the circuit is closed), and
    /// whether this send closed the circuit (the held rows can go now).
    func recordReach(_ reach: SendResult, work: Work, now: Date) -> (retryAt: Date?, reopened: Bool) {
        let key = Self.circuitKey(app: work.entry.app, provider: work.provider)
        let unreachable: Bool
        switch reach.remedy {
        case .retry, .reconnect, .refreshCredentials: unreachable = reach.reach == .notSent
        case .none, .deleteToken, .rejectRequest: unreachable = false
        }
        // A request refused before sending proves nothing about the provider either way.
        if reach.reach == .notSent && !unreachable { return (nil, false) }
        let (transition, circuit) = state.withLock { state -> (ProviderCircuit.Transition?, ProviderCircuit) in
            if state.circuits[key] == nil {
                guard unreachable else { return (nil, ProviderCircuit()) }
                // The probe's own deadline ends first, so only a lost completion waits out probeTimeout.
                state.circuits[key] = ProviderCircuit(
                    baseDelay: retry.base, maximumDelay: min(retry.maximum, ProviderCircuit.longestWait),
                    probeTimeout: max(30, configuration.providerTimeoutSeconds * 2))
            }
            let transition = state.circuits[key]!.record(reach.reach, now: now)
            return (transition, state.circuits[key]!)
        }
        switch transition {
        case .opened(let retryIn)?:
            logger.warning(
                "dispatch.provider_unreachable",
                [
                    "app": work.entry.app, "provider": work.provider.rawValue, "reason": reach.reason,
                    "retry_in_s": String(format: "%.1f", retryIn),
                    "fix":
                        "check the network path to the provider (DNS, firewall, proxy, the CA file); sends wait in the outbox and are not dead-lettered before maxAgeSeconds",
                ])
        case .closed(let seconds)?:
            logger.notice(
                "dispatch.provider_reachable",
                ["app": work.entry.app, "provider": work.provider.rawValue, "down_s": String(format: "%.1f", seconds)])
        case nil:
            break
        }
        let reopened: Bool
        if case .closed? = transition { reopened = true } else { reopened = false }
        switch circuit.phase {
        case .closed: return (nil, reopened)
        case .open(let until): return (until, false)
        case .probing(let since): return (since.addingTimeInterval(circuit.probeTimeout), false)
        }
    }

    /// Settles the sends that the reach rules decide; false leaves the rest to the remedy.
    ///
    /// - A start that may have reached the provider is final: its row completes as if delivered, the
    ///   timeline and `droptrack_starts_in_doubt_total` say so, and it is never sent again.
    /// - A retryable send that never left goes back to the outbox without using up an attempt, until
    ///   the provider's circuit lets sends out again; only `maxAgeSeconds` turns it into a dead letter.
    func settleByReach(
        _ tx: any StoreTransaction, work: Work, result: SendResult, retryAt: Date?, now: Date,
        remedy: inout TimelineRemedy, note: inout String?
    ) throws -> Bool {
        let entry = work.entry
        if result.reach == .inDoubt && work.startsActivity {
            // A newer version requested meanwhile is covered for a push-to-start token (its only send is
            // the start); an FCM token still needs it as an update.
            let covered =
                work.provider == .apns ? max(work.version, entry.requestedVersion) : work.version
            try tx.completeOutbox(ids: [entry.id], sentVersion: covered, owner: owner, now: now)
            // Counted by `reportCommitted` from the timeline line, once the transaction commits.
            try webhooks.record(
                tx, app: entry.app, activityId: entry.activityId, event: .startInDoubt,
                data: [
                    "destination": .string(entry.destination.stored), "reason": .string(result.reason),
                    "version": .number(Double(work.version)),
                ], at: now)
            remedy = .inDoubt
            note =
                "not sent again: the request was written and no answer came (\(result.reason)), so it may have started the activity; a second start would show a second one"
            return true
        }
        guard result.reach == .notSent else { return false }
        switch result.remedy {
        case .retry, .reconnect, .refreshCredentials: break
        case .none, .deleteToken, .rejectRequest: return false
        }
        let age = now.timeIntervalSince(entry.firstQueuedAt)
        guard age <= retry.maxAge else {
            try deadLetter(
                tx, entry,
                error:
                    "provider unreachable for \(Int(saturating: age))s (max age \(Int(saturating: retry.maxAge))s): \(result.explanation)",
                now: now)
            metrics.increment("droptrack_dead_letters_total", ["provider": work.provider.rawValue])
            remedy = .deadLetter
            note = "the provider stayed unreachable past maxAgeSeconds"
            return true
        }
        let at = retryAt ?? now.addingTimeInterval(retry.base)
        try tx.releaseUnsent(ids: [entry.id], owner: owner, availableAt: at, error: result.explanation)
        metrics.increment("droptrack_retries_total", ["provider": work.provider.rawValue])
        remedy = .waitForProvider
        note =
            "never reached the provider; tried again in \(Int(saturating: at.timeIntervalSince(now).rounded()))s, no attempt used"
        return true
    }
}

extension Dispatcher {
    /// Parks a row as a dead letter and queues the `dead_letter` webhook in the same transaction.
    func deadLetter(_ tx: any StoreTransaction, _ entry: OutboxEntry, error: String, now: Date) throws {
        try tx.deadLetterOutbox(id: entry.id, owner: owner, error: error)
        try webhooks.record(
            tx, app: entry.app, activityId: entry.activityId, event: .deadLetter,
            data: [
                "destination": .string(entry.destination.stored), "error": .string(error),
                "attempts": .number(Double(entry.attempts)),
            ], at: now)
    }
}
