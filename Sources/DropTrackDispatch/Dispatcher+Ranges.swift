import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation
import Synchronization

/// A batch of one fan-out range in flight: the tokens after the range's committed cursor, up to
/// `lastFingerprint`. The cursor moves there when every send of the batch has an outcome.
struct RangeBatch: Sendable {
    var job: FanoutJob
    var lastFingerprint: Fingerprint
    var remaining: Int
    /// Fewer tokens than asked for: the range looked exhausted, so the outcome may end the pass at once.
    var short: Bool
    /// The pass's summary so far, this batch's sends included as they finish.
    var summary: FanoutSummary
    /// The version sent, as the pass's summary entry names it.
    var event: String
    var priority: Int
    var activityUpdatedAt: Date
}

/// What ending a range's pass leaves to do after the transaction commits.
struct PassEnd {
    var entry: TimelineEntry?
    /// The fan-out lag to observe, when this was the activity's last pending work.
    var lag: FanoutLag?
}

/// Fan-out range jobs: an event writes one job per fingerprint range of the activity, and the
/// dispatcher streams each range's valid update tokens a batch at a time. Only failures leave a
/// per-token trace (an outbox row to retry, a timeline entry); a pass ends with one summary entry.
extension Dispatcher {
    /// Tokens per range batch at most: what one claim round streams from one range.
    static let rangeBatchLimit = 500

    /// Claims due ranges of an app and turns the next batch of each into sends of the activity's newest
    /// version (read now, as for outbox rows). A range with no token left past its cursor ends its pass
    /// here: it is removed, or started again for a newer version requested meanwhile.
    func prepareRanges(app appID: String, limit: Int, now: Date) -> [Prepared] {
        guard limit > 0, let app = configuration.apps.first(where: { $0.id == appID }) else { return [] }
        // Range sends wait whole while APNs is unreachable (they are not outbox rows to hold one by one):
        // the ranges stay where their cursors are until the circuit closes.
        let closed = state.withLock {
            ($0.circuits[Self.circuitKey(app: appID, provider: .apns)]?.phase ?? .closed) == .closed
        }
        guard closed else { return [] }
        let builder = PayloadBuilder(
            contracts: ContractBook(schemas: app.schemas ?? [:]), fcmTTLSeconds: configuration.fcmTTLSeconds)
        var lags: [FanoutLag] = []
        var batches: [Int: RangeBatch] = [:]
        var passes: [TimelineEntry] = []
        do {
            let prepared = try store.transaction { tx -> [Prepared] in
                lags = []
                batches = [:]
                // Only the ranges the room fills with full batches: the others stay for other replicas. Taking
                // every due range (16 an activity) left a second replica 4 % of a 100k fan-out. A small
                // audience's ranges come back short, and the next round, at once, takes more of them.
                let jobs = try tx.claimFanout(
                    app: appID, limit: (limit + Self.rangeBatchLimit - 1) / Self.rangeBatchLimit, owner: owner,
                    until: now.addingTimeInterval(configuration.leaseSeconds), now: now)
                guard !jobs.isEmpty else { return [] }
                // The room is shared by the ranges claimed: a large fan-out keeps every range moving.
                let size = max(1, min(Self.rangeBatchLimit, limit / jobs.count))
                var activities: [String: ActivityRecord?] = [:]
                var payloads: [String: (payload: [UInt8], priority: Int)] = [:]
                var prepared: [Prepared] = []
                var notes: [TimelineEntry] = []
                for job in jobs {
                    if activities[job.activityId] == nil {
                        activities[job.activityId] = try tx.activity(app: appID, id: job.activityId)
                    }
                    let activity = activities[job.activityId] ?? nil
                    func drop(_ reason: String, _ note: String) throws {
                        try tx.deleteFanout(app: appID, activityId: job.activityId, range: job.range, owner: owner)
                        guard let activity else { return }
                        notes.append(
                            TimelineEntry(
                                app: appID, activityId: job.activityId, at: now, destination: job.destination,
                                provider: .server, event: activity.event.rawValue, version: activity.version,
                                status: 0, reason: reason, remedy: reason == "dead_letter" ? .deadLetter : .none,
                                latencyMs: 0, priority: activity.priority, attempt: 0, note: note))
                    }
                    guard let activity else {
                        try drop("activity_gone", "")
                        continue
                    }
                    if activity.state == .dismissed {
                        try drop("activity_dismissed", "not sent: the activity was dismissed")
                        continue
                    }
                    var summary = FanoutSummary(stored: job.summary)
                    if job.resumed { summary.resumes += 1 }
                    let tokens = try tx.fanoutTokens(
                        app: appID, activityId: job.activityId, range: job.range, after: job.cursor, limit: size)
                    guard let last = tokens.last else {
                        let end = try endPass(
                            tx, job, summary: summary, event: activity.event.rawValue, priority: activity.priority,
                            activityUpdatedAt: activity.updatedAt, now: now)
                        notes += end?.entry.map { [$0] } ?? []
                        lags += end?.lag.map { [$0] } ?? []
                        continue
                    }
                    guard let bundle = app.bundleId else {
                        try drop("dead_letter", "not sent: app \(appID) has no bundleId for APNs")
                        continue
                    }
                    let built: (payload: [UInt8], priority: Int)
                    do {
                        built = try payloads[activity.id] ?? builder.apnsPayload(activity: activity, start: false)
                    } catch {
                        try drop("dead_letter", "not sent: cannot build the payload: \(error)")
                        continue
                    }
                    payloads[activity.id] = built
                    let id = state.withLock {
                        $0.nextRangeBatch += 1
                        return $0.nextRangeBatch
                    }
                    batches[id] = RangeBatch(
                        job: job, lastFingerprint: last.fingerprint, remaining: tokens.count,
                        short: tokens.count < size, summary: summary, event: activity.event.rawValue,
                        priority: activity.priority, activityUpdatedAt: activity.updatedAt)
                    for token in tokens {
                        // No outbox row behind it: the entry only names the destination for the outcome code.
                        let entry = OutboxEntry(
                            id: 0, app: appID, activityId: job.activityId,
                            destination: .token(fingerprint: token.fingerprint), requestedVersion: job.passVersion,
                            availableAt: now, firstQueuedAt: job.firstQueuedAt)
                        let work = Work(
                            entry: entry, version: activity.version, event: activity.event.rawValue,
                            priority: activity.priority, provider: .apns, activityUpdatedAt: activity.updatedAt,
                            rangeBatch: id)
                        prepared.append(
                            .apns(
                                work,
                                builder.apnsPush(
                                    payload: built.payload, priority: built.priority, token: token.token,
                                    environment: token.environment, bundleId: bundle)))
                    }
                }
                if !notes.isEmpty { try tx.appendTimeline(notes) }
                passes = notes
                return prepared
            }
            state.withLock { $0.rangeBatches.merge(batches) { _, new in new } }
            observe(lags)
            publish(passes)
            return prepared
        } catch {
            logger.error("dispatcher.claim_failed", ["app": appID, "error": "\(error)", "of": "fanout_ranges"])
            metrics.increment("droptrack_store_errors_total", ["operation": "claim"])
            return []
        }
    }

    /// Counts finished range sends into their batches; returns the batches now complete (taken out of
    /// the state: their cursors move in the transaction that records these outcomes). Called before that
    /// transaction, which a store may run more than once.
    func finishRangeSends(_ batch: [Completion]) -> [RangeBatch] {
        // Counted here, once per flush, not in the outcome transaction (which a store may run twice).
        var tally = SendTally()
        for completion in batch where completion.work.rangeBatch != nil {
            tally.record(app: completion.work.entry.app, provider: completion.work.provider, result: completion.result)
        }
        tally.publish(to: metrics)
        return state.withLock { state in
            var complete: [RangeBatch] = []
            for completion in batch {
                guard let id = completion.work.rangeBatch, let index = state.rangeBatches.index(forKey: id) else {
                    continue
                }
                let result = completion.result
                // Changed in place: reading a field through the dictionary's subscript copies the whole batch.
                let finished = Self.count(
                    result, version: completion.work.version, into: &state.rangeBatches.values[index])
                if finished { complete.append(state.rangeBatches.remove(at: index).value) }
            }
            return complete
        }
    }

    /// Adds one finished send to its batch; true when it was the batch's last.
    private static func count(_ result: SendResult, version: Int64, into batch: inout RangeBatch) -> Bool {
        batch.summary.record(
            status: result.status, reason: result.reason, latencyMs: seconds(result.latency) * 1000, version: version)
        batch.remaining -= 1
        return batch.remaining <= 0
    }

    /// Ends the pass of a range this worker holds, which has no token left past its cursor: the row goes,
    /// or starts over for a newer version. One summary entry for the pass (none when it sent nothing, as
    /// for the empty ranges of a small audience). Nil when the lease was lost.
    func endPass(
        _ tx: any StoreTransaction, _ job: FanoutJob, summary: FanoutSummary, event: String, priority: Int,
        activityUpdatedAt: Date, now: Date
    ) throws -> PassEnd? {
        // The summary (kept in the row, so a resumed pass has it too) knows the oldest version sent; 0 when
        // the pass sent nothing, which proves nothing.
        let end = try tx.finishFanoutPass(
            app: job.app, activityId: job.activityId, range: job.range, sentVersion: summary.lowestVersion,
            owner: owner, now: now)
        var newer: Int64? = nil
        switch end {
        case .lost: return nil
        case .restarted(let version): newer = version
        case .removed: break
        }
        var result = PassEnd()
        if summary.sends > 0 {
            result.entry = TimelineEntry(
                app: job.app, activityId: job.activityId, at: now, destination: job.destination, provider: .apns,
                event: event, version: summary.highestVersion, status: summary.commonStatus, reason: "fanout_pass",
                remedy: .none,
                latencyMs: summary.percentile(0.5) ?? 0, priority: priority, attempt: 0,
                note: summary.note(range: job.destination.stored, newerVersion: newer))
        }
        if end == .removed, try !tx.hasPendingOutbox(app: job.app, activityId: job.activityId) {
            result.lag = FanoutLag(app: job.app, seconds: now.timeIntervalSince(activityUpdatedAt))
        }
        return result
    }

    /// Records complete batches, only where this worker still holds the range: a batch that found the
    /// range exhausted ends its pass here when nothing came past its last token meanwhile; otherwise the
    /// cursor moves and the range is due again at once for its next batch. Returns what ended passes leave.
    func advanceRanges(_ tx: any StoreTransaction, _ complete: [RangeBatch], now: Date) throws -> [PassEnd] {
        var ended: [PassEnd] = []
        for batch in complete {
            let job = batch.job
            if batch.short,
                try tx.fanoutTokens(
                    app: job.app, activityId: job.activityId, range: job.range, after: batch.lastFingerprint, limit: 1
                ).isEmpty,
                let end = try endPass(
                    tx, job, summary: batch.summary, event: batch.event, priority: batch.priority,
                    activityUpdatedAt: batch.activityUpdatedAt, now: now)
            {
                ended.append(end)
                continue
            }
            let held = try tx.advanceFanout(
                app: batch.job.app, activityId: batch.job.activityId, range: batch.job.range,
                cursor: batch.lastFingerprint, summary: batch.summary.stored, owner: owner, availableAt: now)
            if !held {
                logger.warning(
                    "dispatch.range_lease_lost",
                    [
                        "app": batch.job.app, "activityId": batch.job.activityId, "range": batch.job.destination.stored,
                        "fix":
                            "none needed: another worker resumes the range at its last committed cursor; raise leaseSeconds if sends take longer than the lease",
                    ])
            }
        }
        return ended
    }

    /// The outcome of one range send. A success writes nothing per token; a dead token is invalidated;
    /// any other failure becomes a per-token outbox row, which the outbox's retry, backoff and dead-letter
    /// rules take from there. Returns the timeline entry for a failure, nil for a success.
    func settleRangeSend(
        _ tx: any StoreTransaction, _ completion: Completion, retryAt: Date?, now: Date,
        deadTokens: inout DeadTokens
    ) throws -> TimelineEntry? {
        let work = completion.work
        let result = completion.result
        let entry = work.entry
        // Counted with the batch's others in `finishRangeSends`.
        let latency = Self.seconds(result.latency)
        let remedy: TimelineRemedy
        let note: String
        switch result.remedy {
        case .none:
            return nil
        case .deleteToken:
            try invalidateDeadToken(tx, work: work, result: result, now: now, into: &deadTokens)
            remedy = TimelineRemedy(result.remedy)
            note = "token invalidated"
        default:
            // Its own outbox row from here, this send counted as its first attempt, so `maxAttempts` is what a
            // token gets in all, as before. One that never left counts none and waits for the circuit, as
            // `releaseUnsent` rows do. What the retry rules give up on (a refused request, or `maxAttempts`
            // of 1) is dead-lettered at once through a row made for it, as a claimed row would be.
            let unsent = result.reach == .notSent
            var after: Duration? = nil
            if case .retry(let delay) = result.remedy { after = delay }
            let decision: RetryPolicy.Decision
            if unsent {
                decision = .retry(at: retryAt ?? now.addingTimeInterval(retry.base))
            } else if result.remedy == .rejectRequest {
                decision = .deadLetter(result.explanation)
            } else {
                decision = retry.decide(attempts: 1, firstQueuedAt: now, now: now, retryAfter: after)
            }
            switch decision {
            case .retry(let at):
                _ = try tx.enqueueFailedSend(
                    app: entry.app, activityId: entry.activityId, destination: entry.destination,
                    version: work.version, reachedProvider: !unsent, error: result.explanation, availableAt: at,
                    holder: nil, now: now)
                metrics.increment("droptrack_retries_total", ["provider": work.provider.rawValue])
                remedy = unsent ? .waitForProvider : .retry
                note =
                    "queued as its own outbox row: next attempt in \(Int(saturating: at.timeIntervalSince(now).rounded()))s"
            case .deadLetter(let why):
                remedy = .deadLetter
                note = why
                // A row already queued for the token carries on with its own count.
                guard
                    let row = try tx.enqueueFailedSend(
                        app: entry.app, activityId: entry.activityId, destination: entry.destination,
                        version: work.version, reachedProvider: true, error: result.explanation, availableAt: now,
                        holder: owner, now: now)
                else { break }
                try deadLetter(
                    tx, row, error: why == result.explanation ? why : "\(why): \(result.explanation)", now: now)
                metrics.increment("droptrack_dead_letters_total", ["provider": work.provider.rawValue])
            }
        }
        return TimelineEntry(
            app: entry.app, activityId: entry.activityId, at: now, destination: TimelineDestination(entry.destination),
            provider: work.provider, event: work.event, version: work.version, status: result.status,
            reason: result.reason, remedy: remedy, latencyMs: latency * 1000, priority: work.priority, attempt: 1,
            note: note)
    }

    /// Shows range pass summaries (and dropped ranges) on the event stream, as sends are shown: the
    /// dashboard and the console see a fan-out's progress without an event per token.
    func publish(_ entries: [TimelineEntry]) {
        for entry in entries where events.count(app: entry.app) > 0 {
            var payload = ActivityRegistry.timelineJSON(entry).objectValue ?? [:]
            payload["activityId"] = .string(entry.activityId)
            events.publish(app: entry.app, event: "send", payload: .object(payload))
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
