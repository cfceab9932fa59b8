import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation
import Synchronization

/// Writing finished sends back: outcomes, retries, dead letters, lost channels, and the warnings an
/// operator needs.
extension Dispatcher {
    /// Writes finished sends back in one transaction, then tells metrics and the event stream.
    func flushCompletions() {
        let batch = state.withLock { state -> [Completion] in
            let batch = state.completions
            state.completions.removeAll(keepingCapacity: true)
            return batch
        }
        guard !batch.isEmpty else { return }
        let now = clock.now()
        var published: [(String, JSONValue)] = []
        // Event-stream payloads are built only for apps someone is watching.
        let listening = Set(batch.map(\.work.entry.app)).filter { events.count(app: $0) > 0 }
        var lags: [FanoutLag] = []
        var lostChannels: [(app: String, activityId: String, channel: String)] = []
        var rangeLags: [FanoutLag] = []
        var rangePasses: [TimelineEntry] = []
        // Before the transaction, which a store may run more than once.
        let reaches = batch.map { recordReach($0.result, work: $0.work, now: now) }
        let completeRanges = finishRangeSends(batch)
        var written: [TimelineEntry] = []
        do {
            try store.transaction { tx in
                var timeline: [TimelineEntry] = []
                var touched: [String: (app: String, id: String, updatedAt: Date)] = [:]
                var delivered: [Int64: [Int64]] = [:]
                var deadTokens = DeadTokens()
                for (index, completion) in batch.enumerated() {
                    let work = completion.work
                    if work.rangeBatch != nil {
                        // A range send: nothing per token unless it failed.
                        guard
                            let line = try settleRangeSend(
                                tx, completion, retryAt: reaches[index].retryAt, now: now, deadTokens: &deadTokens)
                        else { continue }
                        timeline.append(line)
                        if listening.contains(line.app) {
                            var payload = ActivityRegistry.timelineJSON(line).objectValue ?? [:]
                            payload["activityId"] = .string(line.activityId)
                            payload["explanation"] = .string(completion.result.explanation)
                            published.append((line.app, .object(payload)))
                        }
                        continue
                    }
                    let result = completion.result
                    let entry = work.entry
                    var remedyTaken = TimelineRemedy(result.remedy)
                    var note: String? = nil
                    var lostChannel: String? = nil
                    if case .channel(let id) = entry.destination, result.reason == "ChannelNotRegistered" {
                        lostChannel = id
                    }
                    let settled = try settleByReach(
                        tx, work: work, result: result, retryAt: reaches[index].retryAt, now: now, remedy: &remedyTaken,
                        note: &note)
                    if !settled {
                        switch lostChannel != nil ? PushRemedy.rejectRequest : result.remedy {
                        case .rejectRequest where lostChannel != nil:
                            try tx.deleteOutbox(id: entry.id, owner: owner)
                            lostChannels.append((entry.app, entry.activityId, lostChannel ?? ""))
                            remedyTaken = .recreateChannel
                            note = "the channel is gone; a new one is created and this version sent on it"
                        case .none:
                            // The send carried the newest version at claim time, which covers what the row asked for.
                            delivered[max(work.version, entry.requestedVersion), default: []].append(entry.id)
                            touched[entry.app + "/" + entry.activityId] = (
                                entry.app, entry.activityId, work.activityUpdatedAt
                            )
                        case .deleteToken:
                            // A channel is no token: there is nothing to invalidate, only the row to drop.
                            try invalidateDeadToken(tx, work: work, result: result, now: now, into: &deadTokens)
                            try tx.deleteOutbox(id: entry.id, owner: owner)
                            note = "token invalidated"
                        case .rejectRequest:
                            try deadLetter(tx, entry, error: result.explanation, now: now)
                            metrics.increment("droptrack_dead_letters_total", ["provider": work.provider.rawValue])
                            remedyTaken = .deadLetter
                            note = result.explanation
                        case .retry(let after):
                            try settleRetry(
                                tx, entry: entry, work: work, retryAfter: after, result: result, now: now,
                                remedy: &remedyTaken, note: &note)
                        case .reconnect, .refreshCredentials:
                            try settleRetry(
                                tx, entry: entry, work: work, retryAfter: nil, result: result, now: now,
                                remedy: &remedyTaken, note: &note)
                        }
                    }
                    let latency = countSend(work: work, result: result)
                    let line = TimelineEntry(
                        app: entry.app, activityId: entry.activityId, at: now,
                        destination: TimelineDestination(entry.destination),
                        provider: work.provider, event: work.event, version: work.version, status: result.status,
                        reason: result.reason, remedy: remedyTaken, latencyMs: latency * 1000, priority: work.priority,
                        attempt: entry.attempts, note: note)
                    timeline.append(line)
                    if listening.contains(entry.app) {
                        var payload = ActivityRegistry.timelineJSON(line).objectValue ?? [:]
                        payload["activityId"] = .string(entry.activityId)
                        if !result.isSuccess { payload["explanation"] = .string(result.explanation) }
                        published.append((entry.app, .object(payload)))
                    }
                }
                try invalidate(deadTokens, tx, now: now)
                for (sentVersion, ids) in delivered {
                    try tx.completeOutbox(ids: ids, sentVersion: sentVersion, owner: owner, now: now)
                }
                let ended = try advanceRanges(tx, completeRanges, now: now)
                rangePasses = ended.compactMap(\.entry)
                timeline += rangePasses
                rangeLags = ended.compactMap(\.lag)
                try tx.appendTimeline(timeline)
                written = timeline
                for (_, activity) in touched where try !tx.hasPendingOutbox(app: activity.app, activityId: activity.id)
                {
                    lags.append(FanoutLag(app: activity.app, seconds: now.timeIntervalSince(activity.updatedAt)))
                }
            }
        } catch {
            // The rows stay claimed; their lease ends and they are sent again (duplicates are harmless:
            // the timestamp is unchanged and the device keeps the newest).
            logger.error("dispatcher.flush_failed", ["error": "\(error)", "sends": String(batch.count)])
            metrics.increment("droptrack_store_errors_total", ["operation": "record_outcomes"])
            writeHealth.writeFailed(operation: "record_outcomes", error: error, at: now)
            return
        }
        writeHealth.writeCommitted()
        for app in Set(zip(batch, reaches).filter { $0.1.reopened }.map(\.0.work.entry.app)) {
            do { _ = try store.transaction { try $0.expediteUnsent(app: app, now: now) } } catch {
                logger.error("dispatcher.expedite_failed", ["app": app, "error": "\(error)"])
            }
        }
        reportCommitted(written)
        observe(lags + rangeLags)
        for (app, payload) in published { events.publish(app: app, event: "send", payload: payload) }
        publish(rangePasses)
        // Creating a channel waits on APNs for up to 30 s: never on the dispatcher's thread, whose sends
        // for every app would wait with it.
        for lost in lostChannels {
            DispatchQueue.global(qos: .utility).async { [self] in
                recreateChannel(app: lost.app, activityId: lost.activityId, lost: lost.channel)
            }
        }
    }

    /// APNs answered ChannelNotRegistered (the channel was deleted, or expired): create a new one,
    /// point the activity at it and send the current version there. Devices that joined the old
    /// channel cannot be moved to the new one; the timeline says so.
    private func recreateChannel(app appID: String, activityId: String, lost: String) {
        let now = clock.now()
        guard let app = configuration.apps.first(where: { $0.id == appID }) else { return }
        let current = try? store.transaction { try $0.activity(app: appID, id: activityId) }
        guard let activity = current ?? nil, activity.channelId == lost, activity.state != .dismissed else { return }
        let policy = MessageStoragePolicy(rawValue: activity.channelPolicy ?? 1) ?? .mostRecentMessageStored
        let created = transport.createChannel(app: app.id, policy: policy)
        do {
            try store.transaction { tx in
                guard var activity = try tx.activityForUpdate(app: appID, id: activityId), activity.channelId == lost
                else {
                    return
                }
                let note: String
                switch created {
                case .success(let id):
                    activity.channelId = id
                    ActivityRegistry.markChannelOwned(&activity)
                    try tx.updateActivity(activity)
                    try tx.enqueue(
                        app: appID, activityId: activityId, destinations: [.channel(id: id)],
                        version: activity.version, availableAt: now, now: now)
                    note =
                        "channel \(lost) was gone (ChannelNotRegistered); created \(id). Devices on the old channel need a new start to join it"
                case .failure(let failure):
                    note = "channel \(lost) was gone and could not be recreated: \(failure.explanation)"
                }
                try tx.appendTimeline([
                    TimelineEntry(
                        app: appID, activityId: activityId, at: now,
                        destination: .channel(id: lost), provider: .server,
                        event: activity.event.rawValue, version: activity.version, status: 0,
                        reason: "channel_recreated", remedy: .recreateChannel, latencyMs: 0,
                        priority: activity.priority, attempt: 0, note: note)
                ])
            }
        } catch {
            logger.error("dispatcher.channel_recreate_failed", ["error": "\(error)"])
            metrics.increment("droptrack_store_errors_total", ["operation": "recreate_channel"])
        }
        wake()
    }

    private func settleRetry(
        _ tx: any StoreTransaction, entry: OutboxEntry, work: Work, retryAfter: Duration?, result: SendResult,
        now: Date,
        remedy: inout TimelineRemedy, note: inout String?
    ) throws {
        switch retry.decide(
            attempts: entry.attempts, firstQueuedAt: entry.firstQueuedAt, now: now, retryAfter: retryAfter)
        {
        case .retry(let at):
            try tx.rescheduleOutbox(id: entry.id, owner: owner, availableAt: at, error: result.explanation)
            metrics.increment("droptrack_retries_total", ["provider": work.provider.rawValue])
            remedy = .retry
            note = "next attempt in \(Int(saturating: at.timeIntervalSince(now).rounded()))s"
        case .deadLetter(let why):
            try deadLetter(tx, entry, error: "\(why): \(result.explanation)", now: now)
            metrics.increment("droptrack_dead_letters_total", ["provider": work.provider.rawValue])
            remedy = .deadLetter
            note = why
        }
    }

    /// What a committed transaction wrote to the timeline that someone should know of: each start in doubt
    /// counted once (counted inside the transaction, every rolled-back attempt counted the batch again:
    /// 1,760 for 40 starts while the disk was full), and the warnings.
    func reportCommitted(_ lines: [TimelineEntry]) {
        let inDoubt = lines.filter { $0.remedy == .inDoubt }.count
        if inDoubt > 0 { metrics.increment("droptrack_starts_in_doubt_total", by: Double(inDoubt)) }
        logFailures(lines)
    }

    /// Every outcome that needs someone's attention gets a warning once it is committed: a dead letter, a token the
    /// provider declared dead, a start in doubt, any other refusal by the provider. Before, these were only in the timeline, the event stream and the
    /// metrics, and a server whose every start was refused (a wrong bundle id, say) logged nothing.
    private func logFailures(_ lines: [TimelineEntry]) {
        // A range pass's summary counts its failures, each of which has its own line.
        for line in lines where line.reason != "fanout_pass" {
            let message: String
            let fix: String
            switch line.remedy {
            case .deadLetter:
                message = "dispatch.dead_letter"
                fix = line.note ?? "see the timeline of the activity"
            case .deleteToken:
                message = "dispatch.token_invalidated"
                fix = "none needed: the app registers a new token when it next runs"
            case .inDoubt:
                message = "dispatch.start_in_doubt"
                fix = "none needed: the device shows at most one activity; if it shows none, start it again"
            case _ where line.status >= 400:
                // Any other refusal (throttled, a credential refused, the provider's own error), retried or not:
                // an operator sees a provider saying no before it becomes a dead letter.
                message = "dispatch.provider_refused"
                fix =
                    line.remedy == .retry
                    ? "none needed if it passes: \(line.note ?? "it is retried")"
                    : "\(line.remedy.rawValue): \(line.note ?? "see the provider's reason")"
            default:
                continue
            }
            logger.warning(
                message,
                [
                    "app": line.app, "activityId": line.activityId, "token": line.destination.stored,
                    "provider": line.provider.rawValue, "status": String(line.status), "reason": line.reason,
                    "fix": fix,
                ])
        }
    }
}
