import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

// An activity's versions after the start (events, direct updates, the end) and what the server knows of it.
extension ActivityRegistry {
    /// Seconds for the `timestamp` of a new version: the database's clock when replicas share one,
    /// so a replica whose clock runs ahead cannot stamp versions in the future for all the others.
    static func pushTimestamp(_ tx: any StoreTransaction, now: Date) throws -> Int64 {
        Int64((try tx.databaseTime() ?? now).timeIntervalSince1970.rounded(.down))
    }

    /// A new version of an activity: a newer timestamp, the priority after the budget, and a send
    /// requested to every live destination. Bursts coalesce: the outbox keeps one row per destination,
    /// the fan-out one job per range, and the sender reads the newest version.
    ///
    /// In constant time whatever the audience: the activity's update tokens are reached through its
    /// `FanoutJob.rangeCount` range jobs (the dispatcher streams them), never read here; only the
    /// user's FCM tokens and the broadcast channel get outbox rows. `destinations` and the choice
    /// between range jobs and rows (`fanoutRangeMinimum`) read the one number the store keeps of the
    /// activity's valid update tokens (`validUpdateTokenCount`, a primary-key read), never a count of them.
    func commitVersion(
        _ activity: inout ActivityRecord, event: LiveActivityEvent, state: JSONValue, alert: JSONValue?, terminal: Bool,
        requestedPriority: Int?, app: AppConfiguration, tx: any StoreTransaction, now: Date
    ) throws -> (notes: [String], destinations: Int) {
        var notes: [String] = []
        let nowUnix = Int64(now.timeIntervalSince1970.rounded(.down))
        let unsent = try tx.hasPendingOutbox(app: activity.app, activityId: activity.id)
        var priority = requestedPriority ?? (event != .update || alert != nil || terminal ? 10 : 5)
        var carriedAlert = alert
        if unsent {
            // The previous version has not reached everyone: its urgency and alert carry over.
            priority = max(priority, activity.priority)
            if carriedAlert == nil && activity.event != .start { carriedAlert = activity.alert }
        }
        var downgraded = false
        let cap = app.priority10PerHour ?? configuration.priority10PerHour
        let recent = activity.priority10Times.filter { $0 > nowUnix - 3600 }
        if priority == 10 && event == .update && recent.count >= cap {
            priority = 5
            downgraded = true
            notes.append(
                "priority 10 downgraded to 5: \(recent.count) priority-10 updates in the last hour (cap \(cap))")
        }
        activity.priority10Times = priority == 10 ? recent + [nowUnix] : recent
        activity.version += 1
        activity.timestamp = max(try Self.pushTimestamp(tx, now: now), activity.timestamp + 1)
        activity.event = event
        activity.contentState = state
        activity.alert = carriedAlert
        activity.priority = priority
        activity.priorityDowngraded = downgraded
        activity.updatedAt = now
        if activity.state == .stale && event == .update { activity.state = .active }
        try checkSize(activity, app: app, contracts: contracts(app))
        let updateTokens = try tx.validUpdateTokenCount(app: activity.app, activityId: activity.id)
        var destinations = try tx.tokens(app: activity.app, userId: activity.userId, kinds: [.fcm]).filter(\.isValid)
        destinations += try audienceFCMTokens(activity, tx: tx)
        if updateTokens >= max(1, configuration.fanoutRangeMinimum) {
            // A token registered later gets the current version as its own outbox row (DT-041).
            try tx.requestFanout(
                app: activity.app, activityId: activity.id, version: activity.version, availableAt: now, now: now)
        } else if updateTokens > 0 {
            // Sixteen range claims for a handful of tokens cost more than a row each (a one-user delivery).
            destinations += try tx.tokens(app: activity.app, activityId: activity.id).filter {
                $0.isValid && $0.kind == .activity
            }
        }
        try tx.updateActivity(activity)
        // iOS 18 devices started on the channel get one broadcast; older ones their update tokens.
        let channel = activity.channelId.map { [OutboxDestination.channel(id: $0)] } ?? []
        try tx.enqueue(
            app: activity.app, activityId: activity.id,
            destinations: destinations.map { .token(fingerprint: $0.fingerprint) } + channel,
            version: activity.version,
            availableAt: now, now: now)
        if event == .end {
            try webhooks.record(
                tx, app: activity.app, activityId: activity.id, event: .activityEnded,
                data: [
                    "version": .number(Double(activity.version)),
                    // A shared activity has no one user: null, and its audience instead.
                    "userId": activity.isShared ? .null : .string(activity.userId),
                    "audience": activity.isShared ? activity.audienceSummary ?? .null : .null,
                ], at: now)
        }
        if !notes.isEmpty {
            try tx.appendTimeline(
                notes.map {
                    TimelineEntry(
                        app: activity.app, activityId: activity.id, at: now, destination: .activity, provider: .server,
                        event: event.rawValue, version: activity.version, status: 0, reason: "priority_downgraded",
                        remedy: .none, latencyMs: 0, priority: priority, attempt: 0, note: $0)
                })
        }
        let ranged = updateTokens >= max(1, configuration.fanoutRangeMinimum) ? updateTokens : 0
        return (notes, ranged + destinations.count + channel.count)
    }

    func mutate(
        app appID: String, activityId: String,
        _ change: (inout ActivityRecord, any StoreTransaction, AppConfiguration, Date) throws -> ActivityVersion
    ) throws(Refusal) -> ActivityVersion {
        let app = try app(appID)
        let now = clock.now()
        let result = try transact { tx in
            guard var activity = try tx.activityForUpdate(app: appID, id: activityId) else {
                throw Refusal.notFound("no activity '\(activityId)'", field: "activityId")
            }
            return try change(&activity, tx, app, now)
        }
        wake()
        return result
    }

    func requireOpen(_ activity: ActivityRecord) throws(Refusal) {
        switch activity.state {
        case .ended, .dismissed:
            throw Refusal.conflict(
                code: .activityEnded,
                message: "activity '\(activity.id)' has ended; iOS ignores pushes after the end",
                field: "activityId")
        case .pending, .active, .stale: break
        }
    }

    /// Applies a domain event through the mapper: the built-in one (`delivery.step`, `delivery.reassign`,
    /// `delivery.eta`) or the attributes type's declarative one (ActivityRegistry+Declarative.swift).
    /// A terminal step ends the activity unless the event asks to keep it open (`terminal: .update`).
    public func applyEvent(app appID: String, activityId: String, _ event: ApplyEvent) throws(Refusal)
        -> ActivityVersion
    {
        let type = event.type
        let known = contracts(try app(appID)).eventTypes
        guard known.contains(type) else {
            // Any string fits the published schema: which types exist is the app's configuration.
            throw Refusal.unprocessable(
                code: .unknownEventType,
                message: "unknown event type '\(type)'; the types are \(known.joined(separator: ", "))", field: "type")
        }
        return try mutate(app: appID, activityId: activityId) { activity, tx, app, now in
            try self.requireOpen(activity)
            return try self.applyMapped(event, to: &activity, app: app, tx: tx, now: now)
        }
    }

    /// Applies an event to an open activity in the caller's transaction: the events route's work, and
    /// a Live Activity button's (`pressAction`).
    func applyMapped(
        _ event: ApplyEvent, to activity: inout ActivityRecord, app: AppConfiguration, tx: any StoreTransaction,
        now: Date
    ) throws -> ActivityVersion {
        let type = event.type
        if let mapper = try self.contracts(app).declarativeMapper(activity.attributesType) {
            return try self.applyDeclarative(mapper, event, to: &activity, app: app, tx: tx, now: now)
        }
        guard activity.attributesType == DeliveryAttributes.typeName else {
            throw Refusal.unprocessable(
                message:
                    "events are for DeliveryAttributes and types with a mapper; PATCH the content-state of \(activity.attributesType), or declare schemas.\(activity.attributesType).mapper",
                field: "type")
        }
        let mapped = try DeliveryMapper.apply(
            type: type, data: event.data, current: activity.contentState, mapperState: activity.mapperState,
            now: now)
        var memory = mapped.mapperState?.objectValue ?? [:]
        for key in Self.serverMemoryKeys { memory[key] = activity.mapperState?[key] }
        activity.mapperState = .object(memory)
        let ending = mapped.terminal && event.terminal == .end
        if ending { self.endState(&activity, dismissal: nil, now: now) }
        let (notes, count) = try self.commitVersion(
            &activity, event: ending ? .end : .update, state: mapped.contentState, alert: mapped.alert,
            terminal: mapped.terminal, requestedPriority: nil, app: app, tx: tx, now: now)
        return ActivityVersion(activity, destinations: count, notes: notes)
    }

    /// A direct update of the content-state.
    public func updateActivity(app appID: String, activityId: String, _ update: UpdateActivity)
        throws(Refusal) -> ActivityVersion
    {
        if let priority = update.priority, priority != 5 && priority != 10 {
            throw Refusal.invalid("priority", "'priority' is 5 or 10 for Live Activities")
        }
        if let alert = update.alert { try Self.checkAlert(alert) }
        return try mutate(app: appID, activityId: activityId) { activity, tx, app, now in
            try self.requireOpen(activity)
            let contracts = self.contracts(app)
            let state = try contracts.contentState(
                update.contentState, type: activity.attributesType, field: "contentState")
            // A direct update takes over from a declarative mapper's computed schedule until the next event,
            // or the scheduler would put the computed state back at the next tick.
            if try contracts.declarativeMapper(activity.attributesType) != nil { activity.schedule = nil }
            if let stale = update.staleDate {
                try self.requireFuture(stale, "staleDate", now: now)
                activity.staleDate = stale
            } else if let fallback = self.defaultStale(now) {
                activity.staleDate = fallback
            }
            if let relevance = update.relevanceScore { activity.relevanceScore = relevance }
            let (notes, count) = try self.commitVersion(
                &activity, event: .update, state: state, alert: update.alert, terminal: false,
                requestedPriority: update.priority, app: app, tx: tx, now: now)
            return ActivityVersion(activity, destinations: count, notes: notes)
        }
    }

    /// Ends an activity, with a final content-state or the current one.
    public func endActivity(app appID: String, activityId: String, _ end: EndActivity) throws(Refusal)
        -> ActivityVersion
    {
        if let alert = end.alert { try Self.checkAlert(alert) }
        return try mutate(app: appID, activityId: activityId) { activity, tx, app, now in
            try self.requireOpen(activity)
            var state = activity.contentState
            if let given = end.contentState {
                state = try self.contracts(app).contentState(
                    given, type: activity.attributesType, field: "contentState")
            }
            self.endState(&activity, dismissal: end.dismissal, now: now)
            let (notes, count) = try self.commitVersion(
                &activity, event: .end, state: state, alert: end.alert, terminal: true, requestedPriority: nil,
                app: app, tx: tx, now: now)
            return ActivityVersion(activity, destinations: count, notes: notes)
        }
    }

    func endState(_ activity: inout ActivityRecord, dismissal: DismissalPolicy?, now: Date) {
        let nowUnix = now.timeIntervalSince1970
        activity.state = .ended
        switch dismissal ?? .default {
        case .default:
            activity.dismissalDate = nil
            activity.dismissAt = now.addingTimeInterval(4 * 3600)
        case .immediate:
            activity.dismissalDate = Int64(saturating: nowUnix)
            activity.dismissAt = now
        case .at(let unix):
            let capped = min(Double(unix), nowUnix + 4 * 3600)
            activity.dismissalDate = Int64(saturating: capped)
            activity.dismissAt = Date(timeIntervalSince1970: max(capped, nowUnix))
        }
    }

    /// A timeline entry as the event stream and `GET /v1/activities/{id}` show it.
    public static func timelineJSON(_ entry: TimelineEntry) -> JSONValue {
        .object([
            "at": .number((entry.at.timeIntervalSince1970 * 1000).rounded() / 1000),
            "destination": .string(entry.destination.stored),
            "provider": .string(entry.provider.rawValue), "event": .string(entry.event),
            "version": .number(Double(entry.version)),
            "status": .number(Double(entry.status)), "reason": .string(entry.reason),
            "remedy": .string(entry.remedy.rawValue),
            "latencyMs": .number((entry.latencyMs * 10).rounded() / 10), "priority": .number(Double(entry.priority)),
            "attempt": .number(Double(entry.attempt)), "note": entry.note.map { .string($0) } ?? .null,
        ])
    }
}
