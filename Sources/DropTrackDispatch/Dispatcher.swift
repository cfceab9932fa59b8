import DropTrackContract
import DropTrackCore
import DropTrackStore
import DropTrackWire
import Foundation
import Synchronization

/// The outbox worker. It claims due rows app by app (a fixed batch per app per round, so one
/// app's 100k fan-out cannot stall another app's single update), reads each activity's newest
/// version at send time, sends with bounded concurrency, and writes outcomes back in batches:
/// done, retry later, token dead, or dead letter. Claims are leases in the store, so rows of a
/// worker that dies come back to any worker when the lease ends.
public final class Dispatcher: Service {
    struct Work: Sendable {
        var entry: OutboxEntry
        var version: Int64
        var event: String
        var priority: Int
        var provider: TimelineProvider
        var activityUpdatedAt: Date
        /// A push-to-start, or the FCM message that starts the activity: sent at most once.
        var startsActivity = false
        /// The fan-out range batch it belongs to (`State.rangeBatches`); nil for an outbox row.
        var rangeBatch: Int? = nil
    }

    struct Completion: Sendable {
        var work: Work
        var result: SendResult
    }

    struct State {
        var inFlight = 0
        var completions: [Completion] = []
        var stopping = false
        var stopped = false
        var signalled = false
        var sent = 0
        var rotation = 0
        /// Per app and provider (`app/apns`): whether sends go out, wait, or probe.
        var circuits: [String: ProviderCircuit] = [:]
        /// Fan-out range batches in flight, by id.
        var rangeBatches: [Int: RangeBatch] = [:]
        var nextRangeBatch = 0
    }

    let store: any DeliveryStore
    let configuration: ServerConfiguration
    let transport: any PushTransport
    let clock: any WallClock
    let metrics: MetricsRegistry
    let events: EventBus
    let logger: Logger
    let owner: String
    let retry: RetryPolicy
    /// Outcomes the app's webhooks hear about, queued with the outcome.
    let webhooks: WebhookOutcomes
    let state = Mutex(State())
    private let stoppedLatch = Latch<Void>()
    private let condition = NSCondition()

    /// Creates a worker; `owner` names its claims (unique per process).
    public init(
        store: any DeliveryStore, configuration: ServerConfiguration, transport: any PushTransport,
        clock: any WallClock,
        metrics: MetricsRegistry, events: EventBus, logger: Logger,
        owner: String = "\(ProcessInfo.processInfo.hostName)-\(getpid())-\(UUID().uuidString.prefix(8))"
    ) {
        self.store = store
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.metrics = metrics
        self.events = events
        self.logger = logger.with(["component": "dispatcher"])
        self.owner = owner
        webhooks = WebhookOutcomes(configuration: configuration)
        retry = RetryPolicy(
            maxAttempts: configuration.maxAttempts, maxAge: configuration.maxAgeSeconds,
            base: configuration.backoffBaseSeconds,
            maximum: configuration.backoffMaxSeconds)
        Self.declareMetrics(metrics)
        metrics.declareGauge(
            "droptrack_provider_unreachable",
            help: "1 while an app's provider cannot be reached (its sends wait in the outbox), by app and provider."
        ) { [weak self] in
            guard let self else { return [] }
            return state.withLock { state in
                state.circuits.sorted { $0.key < $1.key }.map { key, circuit in
                    let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
                    return (["app": parts[0], "provider": parts.last ?? ""], circuit.phase == .closed ? 0 : 1)
                }
            }
        }
    }

    static func declareMetrics(_ metrics: MetricsRegistry) {
        metrics.declareCounter("droptrack_sends_total", help: "Send attempts by provider, outcome and reason.")
        metrics.declareCounter("droptrack_retries_total", help: "Sends rescheduled for another attempt.")
        metrics.declareCounter("droptrack_dead_letters_total", help: "Sends given up on.")
        metrics.declareCounter(
            "droptrack_store_errors_total",
            help: "Dispatcher store transactions that failed (the database away, say), by operation; each is retried.")
        metrics.declareCounter(
            "droptrack_starts_in_doubt_total",
            help:
                "Starts whose outcome is unknown (a crash, or a connection lost after the request was written); never resent, so no device gets two activities."
        )
        metrics.declareCounter(
            "droptrack_sends_held_total",
            help:
                "Sends kept in the outbox, their attempt given back, while their provider is unreachable, by provider.")
        metrics.declareCounter(
            "droptrack_tokens_invalidated_total", help: "Tokens invalidated by provider answers, by reason.")
        metrics.declareHistogram(
            "droptrack_send_latency_seconds", help: "Provider round trip per send.",
            buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
        metrics.declareHistogram(
            "droptrack_fanout_lag_seconds", help: "From an event accepted to the last send of that version finished.",
            // Fine below 50 ms, where a small fan-out lands and where a p99 target is set; coarse above.
            buckets: [
                0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
                1800,
            ])
    }

    /// Sends in flight now.
    public var inFlight: Int { state.withLock { $0.inFlight } }
    /// Sends finished (any outcome) since start.
    public var finished: Int { state.withLock { $0.sent } }

    /// Starts the worker thread.
    public func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "dispatcher"
        thread.start()
    }

    /// Nudges the worker: work was queued.
    public func wake() {
        condition.lock()
        state.withLock { $0.signalled = true }
        condition.signal()
        condition.unlock()
    }

    /// Stops claiming, waits up to `timeout` for the sends in flight, writes their outcomes, and
    /// returns the number still unfinished (their rows come back after the lease).
    @discardableResult
    public func stop(timeout: Duration = .seconds(10)) -> Int {
        state.withLock { $0.stopping = true }
        wake()
        _ = stoppedLatch.wait(timeout: timeout)
        return state.withLock { $0.inFlight }
    }

    public var serviceName: String { "dispatcher" }

    /// `stop` until `deadline`; false if sends were left unfinished.
    public func shutdown(deadline: ContinuousClock.Instant) -> Bool { stop(timeout: deadline - .now) == 0 }

    /// Outcomes are written in batches of at least this many (or every few milliseconds), and rows
    /// are claimed once this much room is free: one transaction per send would cap the fan-out at the
    /// store's commit rate.
    private var flushBatch: Int { max(1, min(256, configuration.maxInFlight / 8)) }
    private var claimRoom: Int { max(1, min(configuration.claimBatch, configuration.maxInFlight / 4)) }

    private func loop() {
        while true {
            flushCompletions()
            let (stopping, inFlight) = state.withLock { ($0.stopping, $0.inFlight) }
            if stopping && inFlight == 0 {
                flushCompletions()
                state.withLock { $0.stopped = true }
                stoppedLatch.resolve(())
                return
            }
            var claimed = 0
            let room = configuration.maxInFlight - inFlight
            if !stopping && (room >= claimRoom || inFlight == 0) {
                claimed = claimRound(capacity: room)
            }
            if claimed == 0 {
                condition.lock()
                let pending = state.withLock { state -> Bool in
                    let pending = state.signalled || state.completions.count >= flushBatch
                    state.signalled = false
                    return pending
                }
                if !pending {
                    let wait = inFlight > 0 ? 0.005 : (stopping ? 0.01 : 0.25)
                    _ = condition.wait(until: Date().addingTimeInterval(wait))
                }
                condition.unlock()
            }
        }
    }

    /// One round over the apps with due work; returns the rows claimed.
    private func claimRound(capacity: Int) -> Int {
        guard capacity > 0 else { return 0 }
        let now = clock.now()
        let apps: [String]
        do { apps = try store.transaction { try $0.appsWithDueWork(now: now) } } catch {
            logger.error("dispatcher.store_failed", ["error": "\(error)"])
            metrics.increment("droptrack_store_errors_total", ["operation": "find_due_work"])
            return 0
        }
        guard !apps.isEmpty else { return 0 }
        let rotation = state.withLock {
            $0.rotation += 1
            return $0.rotation
        }
        var claimed = 0
        var left = capacity
        for offset in 0..<apps.count where left > 0 {
            let app = apps[(rotation + offset) % apps.count]
            let share = max(1, min(configuration.claimBatch, left / max(1, apps.count - offset)))
            var sends = prepare(app: app, limit: share, now: now)
            // Fan-out ranges take the room the outbox rows left (per-destination rows go first: starts,
            // FCM, retries), up to this app's share of the free room.
            let rangeRoom = max(1, left / max(1, apps.count - offset)) - sends.count
            if rangeRoom > 0 { sends += prepareRanges(app: app, limit: rangeRoom, now: now) }
            claimed += sends.count
            left -= sends.count
            for send in sends { launch(send, app: app) }
        }
        return claimed
    }

    enum Prepared: Sendable {
        case apns(Work, APNsPush)
        case fcm(Work, FCMMessage)

        var work: Work {
            switch self {
            case .apns(let work, _), .fcm(let work, _): work
            }
        }
    }

    /// Claims rows of one app and turns each into a send of the newest version, skipping (and
    /// clearing) rows whose token is dead or whose activity is over.
    private func prepare(app appID: String, limit: Int, now: Date) -> [Prepared] {
        guard let app = configuration.apps.first(where: { $0.id == appID }) else { return [] }
        let builder = PayloadBuilder(
            contracts: ContractBook(schemas: app.schemas ?? [:]), fcmTTLSeconds: configuration.fcmTTLSeconds)
        do {
            return try store.transaction { tx in
                let rows = try tx.claim(
                    app: appID, limit: limit, owner: owner, until: now.addingTimeInterval(configuration.leaseSeconds),
                    now: now)
                guard !rows.isEmpty else { return [] }
                let fingerprints = Array(Set(rows.compactMap(\.destination.tokenFingerprint)))
                let tokens = Dictionary(
                    try tx.tokens(app: appID, fingerprints: fingerprints).map { ($0.fingerprint, $0) },
                    uniquingKeysWith: { first, _ in first })
                var activities: [String: ActivityRecord?] = [:]
                // One payload per activity version and kind, however many tokens it goes to.
                var apnsPayloads: [String: (payload: [UInt8], priority: Int)] = [:]
                var dataMaps: [String: [String: String]] = [:]
                var prepared: [Prepared] = []
                var skipped: [TimelineEntry] = []
                for row in rows {
                    if activities[row.activityId] == nil {
                        activities[row.activityId] = try tx.activity(app: appID, id: row.activityId)
                    }
                    let activity = activities[row.activityId] ?? nil
                    func skip(_ reason: String, _ note: String) throws {
                        try tx.deleteOutbox(id: row.id, owner: owner)
                        skipped.append(
                            TimelineEntry(
                                app: appID, activityId: row.activityId, at: now, destination: row.destination.stored,
                                provider: .server, event: activity?.event.rawValue ?? "-",
                                version: activity?.version ?? 0,
                                status: 0, reason: reason, remedy: "none", latencyMs: 0,
                                priority: activity?.priority ?? 0,
                                attempt: row.attempts, note: note))
                    }
                    guard let activity else {
                        try tx.deleteOutbox(id: row.id, owner: owner)
                        continue
                    }
                    let fingerprint: String
                    switch row.destination {
                    case .token(let tokenFingerprint): fingerprint = tokenFingerprint
                    case .channel(let channel):
                        guard activity.channelId == channel, activity.state != .dismissed else {
                            try skip("channel_replaced", "not sent: the activity no longer uses this channel")
                            continue
                        }
                        guard let bundle = app.bundleId else {
                            try deadLetter(tx, row, error: "app \(appID) has no bundleId for APNs", now: now)
                            continue
                        }
                        let key = activity.id + "|update"
                        let built = try apnsPayloads[key] ?? builder.apnsPayload(activity: activity, start: false)
                        apnsPayloads[key] = built
                        // No-storage channels take apns-expiration 0 only; others what the start asked for.
                        let asked = activity.mapperState?["broadcastExpiration"]?.numberValue.map { Int64($0) }
                        let expiration: Int64? =
                            activity.channelPolicy == MessageStoragePolicy.noMessageStored.rawValue ? 0 : asked
                        let push = APNsPush(
                            channelID: channel, bundleID: bundle, payload: built.payload, priority: built.priority,
                            expiration: expiration)
                        let work = Work(
                            entry: row, version: activity.version, event: activity.event.rawValue,
                            priority: built.priority, provider: .apns, activityUpdatedAt: activity.updatedAt)
                        prepared.append(.apns(work, push))
                        continue
                    }
                    guard let token = tokens[fingerprint], token.isValid else {
                        try skip(
                            "token_invalid",
                            "not sent: the token was invalidated (\(tokens[fingerprint]?.invalidReason?.stored ?? "gone"))"
                        )
                        continue
                    }
                    if activity.state == .dismissed {
                        try skip("activity_dismissed", "not sent: the activity was dismissed")
                        continue
                    }
                    if token.kind == .pushToStart && row.inDoubt {
                        // Updates are resent after a crash (the timestamp makes a duplicate harmless), but
                        // a second push-to-start would put a second Live Activity on the device.
                        try skip(
                            "outcome_unknown",
                            "not sent again: the worker holding this start stopped before its outcome was written, so it may have reached the device"
                        )
                        metrics.increment("droptrack_starts_in_doubt_total")
                        continue
                    }
                    if token.kind == .pushToStart && activity.state == .ended {
                        try skip("activity_ended", "not sent: the activity ended before its start reached this device")
                        continue
                    }
                    let provider: TimelineProvider = token.kind == .fcm ? .fcm : .apns
                    let event = token.kind == .pushToStart ? "start" : activity.event.rawValue
                    let work = Work(
                        entry: row, version: activity.version, event: event,
                        priority: token.kind == .pushToStart ? 10 : activity.priority, provider: provider,
                        activityUpdatedAt: activity.updatedAt,
                        startsActivity: token.kind == .pushToStart || (token.kind == .fcm && activity.event == .start))
                    if token.kind == .fcm {
                        let data = dataMaps[activity.id] ?? builder.dataMap(activity)
                        dataMaps[activity.id] = data
                        prepared.append(.fcm(work, builder.fcmMessage(data: data, token: token)))
                    } else {
                        guard let bundle = app.bundleId else {
                            try deadLetter(tx, row, error: "app \(appID) has no bundleId for APNs", now: now)
                            continue
                        }
                        do {
                            let start = token.kind == .pushToStart
                            let key = activity.id + (start ? "|start" : "|update")
                            let built = try apnsPayloads[key] ?? builder.apnsPayload(activity: activity, start: start)
                            apnsPayloads[key] = built
                            prepared.append(
                                .apns(
                                    work,
                                    builder.apnsPush(
                                        payload: built.payload, priority: built.priority, token: token,
                                        bundleId: bundle)))
                        } catch {
                            try deadLetter(tx, row, error: "cannot build the payload: \(error)", now: now)
                        }
                    }
                }
                if !skipped.isEmpty { try tx.appendTimeline(skipped) }
                return try admit(prepared, app: appID, now: now, tx)
            }
        } catch {
            logger.error("dispatcher.claim_failed", ["app": appID, "error": "\(error)"])
            metrics.increment("droptrack_store_errors_total", ["operation": "claim"])
            return []
        }
    }

    private func launch(_ send: Prepared, app: String) {
        state.withLock { $0.inFlight += 1 }
        let done: @Sendable (SendResult) -> Void = { [self] result in
            let wake = state.withLock {
                $0.completions.append(Completion(work: send.work, result: result))
                $0.inFlight -= 1
                $0.sent += 1
                return $0.completions.count >= flushBatch || $0.inFlight == 0
            }
            if wake {
                condition.lock()
                condition.signal()
                condition.unlock()
            }
        }
        switch send {
        case .apns(_, let push): transport.send(app: app, apns: push, completion: done)
        case .fcm(_, let message): transport.send(app: app, fcm: message, completion: done)
        }
    }

    /// Writes finished sends back in one transaction, then tells metrics and the event stream.
    private func flushCompletions() {
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
        var lags: [Double] = []
        var lostChannels: [(app: String, activityId: String, channel: String)] = []
        var rangeLags: [Double] = []
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
                for (index, completion) in batch.enumerated() {
                    let work = completion.work
                    if work.rangeBatch != nil {
                        // A range send: nothing per token unless it failed.
                        guard
                            let line = try settleRangeSend(tx, completion, retryAt: reaches[index].retryAt, now: now)
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
                    var remedyTaken = result.remedy.name
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
                            remedyTaken = "recreate_channel"
                            note = "the channel is gone; a new one is created and this version sent on it"
                        case .none:
                            // The send carried the newest version at claim time, which covers what the row asked for.
                            delivered[max(work.version, entry.requestedVersion), default: []].append(entry.id)
                            touched[entry.app + "/" + entry.activityId] = (
                                entry.app, entry.activityId, work.activityUpdatedAt
                            )
                        case .deleteToken:
                            // A channel is no token: there is nothing to invalidate, only the row to drop.
                            try invalidateDeadToken(tx, work: work, result: result, now: now)
                            try tx.deleteOutbox(id: entry.id, owner: owner)
                            note = "token invalidated"
                        case .rejectRequest:
                            try deadLetter(tx, entry, error: result.explanation, now: now)
                            metrics.increment("droptrack_dead_letters_total", ["provider": work.provider.rawValue])
                            remedyTaken = "dead_letter"
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
                        app: entry.app, activityId: entry.activityId, at: now, destination: entry.destination.stored,
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
                    lags.append(now.timeIntervalSince(activity.updatedAt))
                }
            }
        } catch {
            // The rows stay claimed; their lease ends and they are sent again (duplicates are harmless:
            // the timestamp is unchanged and the device keeps the newest).
            logger.error("dispatcher.flush_failed", ["error": "\(error)", "sends": String(batch.count)])
            metrics.increment("droptrack_store_errors_total", ["operation": "record_outcomes"])
            return
        }
        for app in Set(zip(batch, reaches).filter { $0.1.reopened }.map(\.0.work.entry.app)) {
            do { _ = try store.transaction { try $0.expediteUnsent(app: app, now: now) } } catch {
                logger.error("dispatcher.expedite_failed", ["app": app, "error": "\(error)"])
            }
        }
        logFailures(written)
        for lag in lags + rangeLags { metrics.observe("droptrack_fanout_lag_seconds", lag) }
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
                        destination: OutboxDestination.channel(id: lost).stored, provider: .server,
                        event: activity.event.rawValue, version: activity.version, status: 0,
                        reason: "channel_recreated", remedy: "recreate_channel", latencyMs: 0,
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
        remedy: inout String, note: inout String?
    ) throws {
        switch retry.decide(
            attempts: entry.attempts, firstQueuedAt: entry.firstQueuedAt, now: now, retryAfter: retryAfter)
        {
        case .retry(let at):
            try tx.rescheduleOutbox(id: entry.id, owner: owner, availableAt: at, error: result.explanation)
            metrics.increment("droptrack_retries_total", ["provider": work.provider.rawValue])
            remedy = "retry"
            note = "next attempt in \(Int(at.timeIntervalSince(now).rounded()))s"
        case .deadLetter(let why):
            try deadLetter(tx, entry, error: "\(why): \(result.explanation)", now: now)
            metrics.increment("droptrack_dead_letters_total", ["provider": work.provider.rawValue])
            remedy = "dead_letter"
            note = why
        }
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
            case "dead_letter":
                message = "dispatch.dead_letter"
                fix = line.note ?? "see the timeline of the activity"
            case PushRemedy.deleteToken.name:
                message = "dispatch.token_invalidated"
                fix = "none needed: the app registers a new token when it next runs"
            case "in_doubt":
                message = "dispatch.start_in_doubt"
                fix = "none needed: the device shows at most one activity; if it shows none, start it again"
            case _ where line.status >= 400:
                // Any other refusal (throttled, a credential refused, the provider's own error), retried or not:
                // an operator sees a provider saying no before it becomes a dead letter.
                message = "dispatch.provider_refused"
                fix =
                    line.remedy == "retry"
                    ? "none needed if it passes: \(line.note ?? "it is retried")"
                    : "\(line.remedy): \(line.note ?? "see the provider's reason")"
            default:
                continue
            }
            logger.warning(
                message,
                [
                    "app": line.app, "activityId": line.activityId, "token": line.destination,
                    "provider": line.provider.rawValue, "status": String(line.status), "reason": line.reason,
                    "fix": fix,
                ])
        }
    }
}
