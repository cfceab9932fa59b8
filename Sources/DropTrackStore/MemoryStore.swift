import DropTrackContract
import DropTrackCore
import DropTrackModel
import Foundation
import Synchronization

/// The in-memory store: the same semantics as SQLite and PostgreSQL, for tests and `--store memory`.
/// A transaction holds the lock and works on a copy, so a throw leaves nothing half-written.
public final class MemoryStore: DeliveryStore {
    struct Data {
        var tokens: [String: TokenRecord] = [:]
        var activities: [String: ActivityRecord] = [:]
        var outbox: [Int64: OutboxEntry] = [:]
        var outboxIndex: [String: Int64] = [:]
        var deadLetters: [Int64: OutboxEntry] = [:]
        var nextOutboxID: Int64 = 1
        var timeline: [String: [TimelineEntry]] = [:]
        var webhooks: [Int64: QueuedWebhook] = [:]
        var nextWebhookID: Int64 = 1
        /// Tags by app, subject kind and subject id.
        var tags: [String: Set<String>] = [:]
        /// A shared activity's members by app and activity id.
        var members: [String: Set<String>] = [:]
        /// Fan-out range jobs by (app, activity, range).
        var fanout: [String: FanoutJob] = [:]
        /// Console sessions by the digest of their id.
        var consoleSessions: [String: ConsoleSessionRecord] = [:]
        /// Device credentials' `notBefore` by app and user.
        var credentialRevocations: [String: Int64] = [:]
        /// Start outcomes counted by app, activity and outcome.
        var startOutcomes: [StartOutcomeKey: Int] = [:]
    }

    /// A webhook delivery and who holds it (its lease end is `delivery.availableAt`, as in SQL).
    struct QueuedWebhook {
        var delivery: WebhookDelivery
        var claimedBy: String?
    }

    private let data = Mutex(Data())

    /// Creates an empty store.
    public init() {}

    public var description: String { "memory" }

    public func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        let (result, committed) = try data.withLock { data in
            // Move the data into the transaction (no copy: it stays uniquely referenced), and on a
            // throw undo the changes from the journal, so a failure costs what it changed, not the
            // whole store.
            let transaction = MemoryTransaction(data: data)
            data = Data()
            defer { data = transaction.data }
            do {
                return (try body(transaction), transaction.committedActions)
            } catch {
                transaction.rollBack()
                throw error
            }
        }
        for action in committed { action() }
        return result
    }
}

final class MemoryTransaction: StoreTransaction {
    var data: MemoryStore.Data
    var journal: [(inout MemoryStore.Data) -> Void] = []
    private(set) var committedActions: [@Sendable () -> Void] = []

    init(data: MemoryStore.Data) { self.data = data }

    func rollBack() {
        for undo in journal.reversed() { undo(&data) }
        journal.removeAll()
    }

    private func setToken(_ key: String, _ value: TokenRecord?) {
        let old = data.tokens[key]
        journal.append { $0.tokens[key] = old }
        data.tokens[key] = value
    }

    private func setActivity(_ key: String, _ value: ActivityRecord?) {
        let old = data.activities[key]
        journal.append { $0.activities[key] = old }
        data.activities[key] = value
    }

    func setOutbox(_ id: Int64, _ value: OutboxEntry?) {
        let old = data.outbox[id]
        journal.append { $0.outbox[id] = old }
        data.outbox[id] = value
    }

    func setWebhook(_ id: Int64, _ value: MemoryStore.QueuedWebhook?) {
        let old = data.webhooks[id]
        journal.append { $0.webhooks[id] = old }
        data.webhooks[id] = value
    }

    func setFanout(_ key: String, _ value: FanoutJob?) {
        let old = data.fanout[key]
        journal.append { $0.fanout[key] = old }
        data.fanout[key] = value
    }

    func setConsoleSession(_ digest: String, _ value: ConsoleSessionRecord?) {
        let old = data.consoleSessions[digest]
        journal.append { $0.consoleSessions[digest] = old }
        data.consoleSessions[digest] = value
    }

    func setCredentialRevocation(_ key: String, _ value: Int64?) {
        let old = data.credentialRevocations[key]
        journal.append { $0.credentialRevocations[key] = old }
        data.credentialRevocations[key] = value
    }

    func setNextWebhookID(_ value: Int64) {
        let old = data.nextWebhookID
        journal.append { $0.nextWebhookID = old }
        data.nextWebhookID = value
    }

    func setTags(_ key: String, _ value: Set<String>?) {
        let old = data.tags[key]
        journal.append { $0.tags[key] = old }
        data.tags[key] = value
    }

    func setMembers(_ key: String, _ value: Set<String>?) {
        let old = data.members[key]
        journal.append { $0.members[key] = old }
        data.members[key] = value
    }

    func setOutboxIndex(_ key: String, _ value: Int64?) {
        let old = data.outboxIndex[key]
        journal.append { $0.outboxIndex[key] = old }
        data.outboxIndex[key] = value
    }

    static func key(_ app: String, _ id: String) -> String { app + "\u{1F}" + id }

    func token(app: String, fingerprint: Fingerprint) throws -> TokenRecord? {
        data.tokens[Self.key(app, fingerprint.value)]
    }

    func databaseTime() throws -> Date? { nil }

    func afterCommit(_ action: @escaping @Sendable () -> Void) { committedActions.append(action) }

    func saveTokens(_ tokens: [TokenRecord]) throws {
        for token in tokens { setToken(Self.key(token.app, token.fingerprint.value), token) }
    }

    func tokens(app: String, userId: String, kinds: [TokenKind]) throws -> [TokenRecord] {
        data.tokens.values.filter { $0.app == app && $0.userId == userId && kinds.contains($0.kind) }
            .sorted { $0.createdAt < $1.createdAt }
    }

    func tokens(app: String, activityId: String) throws -> [TokenRecord] {
        data.tokens.values.filter { $0.app == app && $0.kind == .activity && $0.activityId == activityId }
            .sorted { $0.createdAt < $1.createdAt }
    }

    func channelSubscriptions(app: String, activityId: String) throws -> [TokenRecord] {
        data.tokens.values.filter { $0.app == app && $0.kind == .channelSubscription && $0.activityId == activityId }
            .sorted { $0.createdAt < $1.createdAt }
    }

    func tokens(app: String, deviceIds: [String]) throws -> [TokenRecord] {
        let devices = Set(deviceIds)
        return data.tokens.values.filter { $0.app == app && devices.contains($0.deviceId) }
            .sorted { $0.createdAt < $1.createdAt }
    }

    func validTokens(app: String, deviceIds: [String]) throws -> [TokenRecord] {
        try tokens(app: app, deviceIds: deviceIds).filter(\.isValid)
    }

    func tokens(app: String, fingerprints: [Fingerprint]) throws -> [TokenRecord] {
        fingerprints.compactMap { data.tokens[Self.key(app, $0.value)] }
    }

    func refreshTokenStatistics() throws {}

    func invalidateTokens(app: String, fingerprints: [Fingerprint], reason: InvalidationReason, at: Date) throws {
        for fingerprint in fingerprints {
            let key = Self.key(app, fingerprint.value)
            guard var token = data.tokens[key], token.invalidatedAt == nil else { continue }
            token.invalidatedAt = at
            token.invalidReason = reason
            setToken(key, token)
        }
    }

    func recentTokens(app: String, limit: Int) throws -> Listed<TokenRecord> {
        Listed(
            records: Array(
                data.tokens.values.filter { $0.app == app }
                    .sorted { ($0.createdAt, $0.fingerprint) > ($1.createdAt, $1.fingerprint) }.prefix(max(0, limit))))
    }

    func recentInvalidations(app: String, limit: Int) throws -> Listed<TokenRecord> {
        let invalidated = data.tokens.values.compactMap { token in
            token.app == app ? token.invalidatedAt.map { (at: $0, token: token) } : nil
        }
        return Listed(
            records: invalidated.sorted { ($0.at, $0.token.fingerprint) > ($1.at, $1.token.fingerprint) }
                .prefix(max(0, limit)).map(\.token))
    }

    func activity(app: String, id: String) throws -> ActivityRecord? { data.activities[Self.key(app, id)] }

    func recentActivities(app: String, state: ActivityState?, limit: Int) throws -> Listed<ActivityRecord> {
        Listed(
            records: Array(
                data.activities.values.filter { $0.app == app && (state == nil || $0.state == state) }
                    .sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.prefix(max(0, limit))))
    }

    /// The store's lock already keeps other transactions out until this one ends.
    func activityForUpdate(app: String, id: String) throws -> ActivityRecord? { try activity(app: app, id: id) }

    func activity(app: String, idempotencyKey: String) throws -> ActivityRecord? {
        data.activities.values.first { $0.app == app && $0.idempotencyKey == idempotencyKey }
    }

    func insertActivity(_ activity: ActivityRecord) throws {
        let key = Self.key(activity.app, activity.id)
        guard data.activities[key] == nil else { throw StoreError(.conflict, "activity \(activity.id) exists") }
        if let idempotencyKey = activity.idempotencyKey,
            try self.activity(app: activity.app, idempotencyKey: idempotencyKey) != nil
        {
            throw StoreError(.conflict, "idempotency key already used")
        }
        setActivity(key, activity)
    }

    func updateActivity(_ activity: ActivityRecord) throws {
        setActivity(Self.key(activity.app, activity.id), activity)
    }

    func activitiesNeedingAttention(now: Date) throws -> [ActivityRecord] {
        data.activities.values.filter { Self.needsAttention($0, now: now) }.sorted { $0.createdAt < $1.createdAt }
    }

    /// The scheduler's filter, shared in spirit with the SQL engines' WHERE clause.
    static func needsAttention(_ activity: ActivityRecord, now: Date) -> Bool {
        switch activity.state {
        case .pending: return (activity.startAt ?? .distantPast) <= now
        case .active, .stale:
            if let endAt = activity.endAt, endAt <= now { return true }
            if activity.state == .active, let stale = activity.staleDate, Double(stale) <= now.timeIntervalSince1970 {
                return true
            }
            return activity.schedule != nil
        case .ended: return (activity.dismissAt ?? .distantFuture) <= now
        case .dismissed: return false
        }
    }

    func appendTimeline(_ entries: [TimelineEntry]) throws {
        for entry in entries {
            let key = Self.key(entry.app, entry.activityId)
            journal.append { $0.timeline[key]?.removeLast() }
            data.timeline[key, default: []].append(entry)
        }
        for (key, count) in TimelineEntry.startOutcomeCounts(entries) {
            let before = data.startOutcomes[key]
            journal.append { $0.startOutcomes[key] = before }
            data.startOutcomes[key, default: 0] += count
        }
    }

    func timeline(app: String, activityId: String, limit: Int) throws -> [TimelineEntry] {
        Array((data.timeline[Self.key(app, activityId)] ?? []).suffix(limit))
    }

    func timeline(app: String, activityId: String, destinations: [TimelineDestination], limit: Int) throws
        -> [TimelineEntry]
    {
        let wanted = Set(destinations)
        return Array(
            (data.timeline[Self.key(app, activityId)] ?? []).filter { wanted.contains($0.destination) }
                .suffix(limit))
    }

    func pruneTokens(invalidatedBefore before: Date, limit: Int) throws -> Int {
        let old = data.tokens.compactMap { key, token in
            token.invalidatedAt.flatMap { $0 < before ? (at: $0, key: key) : nil }
        }
        .sorted { ($0.at, $0.key) < ($1.at, $1.key) }.prefix(limit)
        for entry in old { setToken(entry.key, nil) }
        return old.count
    }

    func pruneTimeline(before: Date, limit: Int) throws -> Int {
        var removed = 0
        for key in data.timeline.keys.sorted() where removed < limit {
            let entries = data.timeline[key] ?? []
            let old = min(entries.prefix { $0.at < before }.count, limit - removed)
            guard old > 0 else { continue }
            journal.append { $0.timeline[key] = entries }
            data.timeline[key] = Array(entries.dropFirst(old))
            removed += old
        }
        return removed
    }
}
