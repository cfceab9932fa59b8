import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import Foundation
import Synchronization

extension ActivityRegistry {
    /// What the scheduler did in one pass (for logs and tests).
    public struct SchedulerPass: Sendable, Equatable {
        public var started = 0
        public var ended = 0
        public var staled = 0
        public var recomputed = 0
        public var dismissed = 0
        public var channelsDeleted = 0
        public var timelineRowsDeleted = 0
        public var tokensDeleted = 0
    }

    /// One scheduler pass: scheduled starts become active (their sends were queued for `startAt`),
    /// activities past `endAt` (or the 8-hour limit) end with the default dismissal, active ones
    /// past their stale date turn stale, schedule-type activities get their current entry pushed
    /// when it changed, and ended ones past their dismissal are dismissed and their tokens discarded.
    @discardableResult
    public func runScheduled() -> SchedulerPass {
        let now = clock.now()
        var pass = SchedulerPass()
        let due: [ActivityRecord]
        do { due = try store.transaction { try $0.activitiesNeedingAttention(now: now) } } catch { return pass }
        var retiredChannels: [(app: String, id: String)] = []
        for candidate in due where !Self.scheduleIsIdle(candidate, now: now) {
            guard let app = try? app(candidate.app) else { continue }
            let changed: Bool? = try? store.transaction { tx in
                guard var activity = try tx.activityForUpdate(app: candidate.app, id: candidate.id) else {
                    return false
                }
                switch activity.state {
                case .pending:
                    guard (activity.startAt ?? now) <= now else { return false }
                    activity.state = .active
                    try tx.updateActivity(activity)
                    pass.started += 1
                    return true
                case .active, .stale:
                    if let endAt = activity.endAt, endAt <= now {
                        endState(&activity, dismissal: nil, now: now)
                        _ = try commitVersion(
                            &activity, event: .end, state: activity.contentState, alert: nil, terminal: true,
                            requestedPriority: nil, app: app, tx: tx, now: now)
                        pass.ended += 1
                        return true
                    }
                    if let schedule = activity.schedule, let entry = Self.currentEntry(schedule, at: now),
                        entry != activity.contentState
                    {
                        _ = try commitVersion(
                            &activity, event: .update, state: entry, alert: nil, terminal: false,
                            requestedPriority: nil,
                            app: app, tx: tx, now: now)
                        pass.recomputed += 1
                        return true
                    }
                    if activity.state == .active, let stale = activity.staleDate,
                        Double(stale) <= now.timeIntervalSince1970
                    {
                        activity.state = .stale
                        try tx.updateActivity(activity)
                        pass.staled += 1
                        return true
                    }
                    return false
                case .ended:
                    guard let dismissAt = activity.dismissAt, dismissAt <= now else { return false }
                    activity.state = .dismissed
                    try tx.updateActivity(activity)
                    let tokens = try
                        (tx.tokens(app: activity.app, activityId: activity.id)
                        + tx.channelSubscriptions(app: activity.app, activityId: activity.id)).filter(\.isValid)
                    try tx.invalidateTokens(
                        app: activity.app, fingerprints: tokens.map(\.fingerprint), reason: .activityEnded, at: now)
                    if let channel = activity.channelId, activity.mapperState?["channelOwned"] == .bool(true) {
                        retiredChannels.append((activity.app, channel))
                    }
                    pass.dismissed += 1
                    return true
                case .dismissed:
                    return false
                }
            }
            if changed == true { wake() }
        }
        // A dismissed activity's channel is deleted, so stale channels never fill the app's quota (DT-058).
        for channel in retiredChannels {
            if case .success = channels?.deleteChannel(app: channel.app, id: channel.id) { pass.channelsDeleted += 1 }
        }
        // One row per send: without a limit a busy server's timeline grows without end. Dead,
        // superseded and finished tokens pile up the same way. Batches of 10,000 for up to two
        // seconds a tick each, so a busy day's rows go the next day.
        pass.timelineRowsDeleted = prune(retentionDays: configuration.timelineRetentionDays, now: now) {
            try $0.pruneTimeline(before: $1, limit: $2)
        }
        pass.tokensDeleted = prune(retentionDays: configuration.tokenRetentionDays, now: now) {
            try $0.pruneTokens(invalidatedBefore: $1, limit: $2)
        }
        return pass
    }

    /// True for an activity listed only for its schedule whose entry in force is already its
    /// content-state: no locking transaction is opened for it, so a tick over many schedule-type
    /// activities costs one read until a boundary comes. (The read itself still lists every open
    /// schedule activity: a `next_boundary_at` column would let the query skip them.)
    static func scheduleIsIdle(_ activity: ActivityRecord, now: Date) -> Bool {
        guard activity.state == .active || activity.state == .stale, let schedule = activity.schedule else {
            return false
        }
        if let endAt = activity.endAt, endAt <= now { return false }
        if activity.state == .active, let stale = activity.staleDate, Double(stale) <= now.timeIntervalSince1970 {
            return false
        }
        let entry = currentEntry(schedule, at: now)
        return entry == nil || entry == activity.contentState
    }

    /// Runs `delete` (older than the cutoff, at most a batch) until it deletes less than a batch or
    /// two seconds have passed; returns how many rows went.
    private func prune(
        retentionDays: Double, now: Date, _ delete: (any StoreTransaction, Date, Int) throws -> Int
    ) -> Int {
        guard retentionDays > 0 else { return 0 }
        let cutoff = now.addingTimeInterval(-retentionDays * 86_400)
        let budget = ContinuousClock.now + .seconds(2)
        var total = 0
        while ContinuousClock.now < budget {
            guard let deleted = try? store.transaction({ try delete($0, cutoff, 10_000) }) else { break }
            total += deleted
            if deleted < 10_000 { break }
        }
        return total
    }
}

/// Runs the scheduler every interval on its own thread until stopped. Between ticks it waits on a
/// latch, so `stop` ends the wait at once instead of at the next turn of a sleep loop.
public final class SchedulerLoop: Service {
    private let registry: ActivityRegistry
    private let interval: Double
    private let stopRequested = Latch<Void>()
    private let stopped = Latch<Void>()

    public init(registry: ActivityRegistry, interval: Double) {
        self.registry = registry
        self.interval = interval
    }

    public var serviceName: String { "scheduler" }

    public func start() {
        let thread = Thread { [self] in
            while stopRequested.resolved == nil {
                registry.runScheduled()
                _ = stopRequested.wait(timeout: .seconds(interval))
            }
            stopped.resolve(())
        }
        thread.name = "scheduler"
        thread.start()
    }

    /// Asks the loop to stop after the tick in progress, without waiting.
    public func stop() { stopRequested.resolve(()) }

    /// Stops the loop and waits for the tick in progress, until `deadline`.
    public func shutdown(deadline: ContinuousClock.Instant) -> Bool {
        stop()
        return stopped.wait(until: deadline) != nil
    }
}
