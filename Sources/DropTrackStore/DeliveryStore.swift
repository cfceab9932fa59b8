import DropTrackContract
import DropTrackCore
import DropTrackModel
import Foundation

/// The storage seam. Everything the server keeps goes through a transaction, so the logic above
/// is written once and each engine (memory, SQLite, PostgreSQL) implements only these primitives.
///
/// Nothing correctness depends on lives in one process: claims are leases in the store, versions
/// and timestamps are assigned inside transactions, and uniqueness is the store's constraints.
public protocol DeliveryStore: Sendable, CustomStringConvertible {
    /// Runs `body` atomically: all of its writes land or none do. Engines may retry the body when a
    /// concurrent writer forced a rollback, so `body` must not have effects outside the store.
    func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T
}

/// Outbox depth and age, for metrics and readiness.
public struct OutboxStats: Sendable, Equatable {
    /// Rows waiting or in flight: per-destination rows plus fan-out range rows.
    public var depth: Int
    /// When the oldest of them was first queued.
    public var oldestQueuedAt: Date?
    /// Rows parked as dead letters (kept for the timeline, never sent).
    public var deadLetters: Int

    public init(depth: Int, oldestQueuedAt: Date?, deadLetters: Int) {
        self.depth = depth
        self.oldestQueuedAt = oldestQueuedAt
        self.deadLetters = deadLetters
    }
}

/// The primitive operations inside a transaction.
public protocol StoreTransaction {
    /// The database's own clock, for values every replica must agree on (the push timestamp), or
    /// nil when the store lives in one process, whose clock is then the authority.
    func databaseTime() throws -> Date?
    /// Runs `action` once the transaction has committed, outside the store's locks, and never if it rolls
    /// back: how a writer wakes a worker for what it queued. A wake sent before the commit would find
    /// nothing to claim, and the worker would sleep through its poll interval.
    func afterCommit(_ action: @escaping @Sendable () -> Void)

    // MARK: Tokens

    /// A token by its fingerprint.
    func token(app: String, fingerprint: Fingerprint) throws -> TokenRecord?
    /// Inserts each token, or replaces the one with the same (app, fingerprint); one record per
    /// fingerprint in a call.
    func saveTokens(_ tokens: [TokenRecord]) throws
    /// A user's tokens of the given kinds (valid or not).
    func tokens(app: String, userId: String, kinds: [TokenKind]) throws -> [TokenRecord]
    /// The update tokens registered for an activity (valid or not).
    func tokens(app: String, activityId: String) throws -> [TokenRecord]
    /// The devices that registered they subscribed to an activity's broadcast channel.
    func channelSubscriptions(app: String, activityId: String) throws -> [TokenRecord]
    /// The tokens registered from these devices (valid or not), oldest first: what new tokens may
    /// supersede.
    func tokens(app: String, deviceIds: [String]) throws -> [TokenRecord]
    /// The valid tokens of these devices, oldest first: all a registration needs, whatever number of
    /// invalidated tokens a device has left behind (an index holds only valid ones).
    func validTokens(app: String, deviceIds: [String]) throws -> [TokenRecord]
    /// Several tokens by fingerprint (missing ones are left out).
    func tokens(app: String, fingerprints: [Fingerprint]) throws -> [TokenRecord]
    /// Many tokens were just written at once (an import): the engine's planner learns the table's new
    /// shape now, not at its next automatic pass. PostgreSQL runs `ANALYZE tokens`; without it, a
    /// fan-out right after a 100k import read every token of the activity for each range batch (31.6 ms
    /// a batch against 0.7 ms, from 80k pushes/s down to 2k). SQLite and memory keep no statistics.
    func refreshTokenStatistics() throws
    /// Marks tokens invalid, keeping the first reason given.
    func invalidateTokens(app: String, fingerprints: [Fingerprint], reason: InvalidationReason, at: Date) throws
    /// The app's newest `limit` tokens by registration time, newest first (the operator console's list);
    /// a row that cannot be read is left out and named in `corrupt`, so one bad row hides nothing else.
    func recentTokens(app: String, limit: Int) throws -> Listed<TokenRecord>
    /// The app's `limit` most recently invalidated tokens, newest invalidation first (as `recentTokens`).
    func recentInvalidations(app: String, limit: Int) throws -> Listed<TokenRecord>

    // MARK: Activities

    func activity(app: String, id: String) throws -> ActivityRecord?
    /// The activity, locked until the transaction ends: read an activity this way when the transaction
    /// goes on to update it, so a writer in another process waits and then reads the new version instead
    /// of overwriting it (versions and timestamps stay monotonic across replicas). Plain reads use
    /// `activity(app:id:)`, which never waits for a writer.
    func activityForUpdate(app: String, id: String) throws -> ActivityRecord?
    func activity(app: String, idempotencyKey: String) throws -> ActivityRecord?
    /// Throws `conflict` when the id or the idempotency key is taken.
    func insertActivity(_ activity: ActivityRecord) throws
    func updateActivity(_ activity: ActivityRecord) throws
    /// Activities the scheduler must look at by `now`: scheduled starts, automatic ends, stale and
    /// dismissal times, and schedule-type activities.
    func activitiesNeedingAttention(now: Date) throws -> [ActivityRecord]
    /// The app's newest `limit` activities by creation time, newest first, only those in `state`
    /// when given (the operator console's list; as `recentTokens`, corrupt rows are named, not read).
    func recentActivities(app: String, state: ActivityState?, limit: Int) throws -> Listed<ActivityRecord>

    // MARK: Outbox

    /// Asks for `version` to reach each destination: inserts a row, or raises the requested version
    /// of the row already there (which is how bursts coalesce into one send of the newest state).
    func enqueue(
        app: String, activityId: String, destinations: [OutboxDestination], version: Int64, availableAt: Date,
        now: Date) throws
    /// A send from a fan-out range failed and goes on as its own row: inserts it with `error` and the
    /// send counted as its first attempt when it reached the provider; one that did not counts none and is
    /// marked as `releaseUnsent` marks rows, for `expediteUnsent`. With `holder`, the new row is leased to
    /// it and returned, for the caller to settle now (a dead letter). A row already there only has its
    /// requested version raised, and nil is returned.
    func enqueueFailedSend(
        app: String, activityId: String, destination: OutboxDestination, version: Int64, reachedProvider: Bool,
        error: String, availableAt: Date, holder: String?, now: Date
    ) throws -> OutboxEntry?
    /// Leases up to `limit` due rows of an app to `owner` until `until` (a claimed row is due again
    /// when its lease ends). A row whose previous lease ran out with no outcome comes back `inDoubt`.
    /// A row that cannot be read (a corrupt value) moves to the dead letters with the error instead.
    func claim(app: String, limit: Int, owner: String, until: Date, now: Date) throws -> [OutboxEntry]
    /// Apps with rows or fan-out ranges due now.
    func appsWithDueWork(now: Date) throws -> [String]
    /// The sends of `sentVersion` are final: each row goes, unless a newer version was requested
    /// meanwhile, in which case it is released to send again at once. Only rows `owner` still holds
    /// are touched: one whose lease ran out and that another worker claimed is that worker's now.
    func completeOutbox(ids: [Int64], sentVersion: Int64, owner: String, now: Date) throws
    /// Releases the row, if `owner` still holds it, to try again at `availableAt`.
    func rescheduleOutbox(id: Int64, owner: String, availableAt: Date, error: String) throws
    /// Releases rows `owner` still holds whose send never reached the provider (no connection, or
    /// held back while the provider is unreachable), to try again at `availableAt`. Their claim's
    /// attempt is given back: an outage must not use up `maxAttempts`, only `maxAgeSeconds`.
    func releaseUnsent(ids: [Int64], owner: String, availableAt: Date, error: String) throws
    /// Makes the app's rows released by `releaseUnsent` due now (the provider answers again), so
    /// recovery does not wait out each row's backoff; returns how many.
    func expediteUnsent(app: String, now: Date) throws -> Int
    /// Parks the row, if `owner` still holds it, as a dead letter: kept, never sent.
    func deadLetterOutbox(id: Int64, owner: String, error: String) throws
    /// Removes the row, if `owner` still holds it (its token is gone or its activity is over).
    func deleteOutbox(id: Int64, owner: String) throws
    /// Rows still waiting for an activity: per-destination rows plus fan-out range rows.
    func pendingOutbox(app: String, activityId: String) throws -> Int
    /// Per-destination rows still waiting for an activity, to any of `fingerprints` (one member's devices).
    func pendingOutbox(app: String, activityId: String, fingerprints: [Fingerprint]) throws -> Int
    /// Whether any row (per destination or fan-out range) still waits for an activity (cheap, however
    /// large the fan-out).
    func hasPendingOutbox(app: String, activityId: String) throws -> Bool
    func outboxStats() throws -> OutboxStats
    /// Makes the engine write without keeping anything (SQLite rewrites its header page): the readiness
    /// probe of a store that refused a write. It fails as writes fail, on a full disk say.
    func probeWrite() throws
    /// `outboxStats().depth` by app (apps with nothing waiting are left out): the console plots its own app's.
    func outboxDepthByApp() throws -> [String: Int]

    // MARK: Fan-out ranges

    /// Asks for `version` to reach every valid update token of the activity: upserts its
    /// `FanoutJob.rangeCount` range rows, raising the requested version of those already there (a burst
    /// is one job per range, for the newest version). A constant number of rows, however large the audience.
    func requestFanout(app: String, activityId: String, version: Int64, availableAt: Date, now: Date) throws
    /// Leases up to `limit` due range rows of an app to `owner` until `until` (due again when the lease
    /// ends, then `resumed`). A claim at the start of a pass sets its `passVersion` to the requested one.
    func claimFanout(app: String, limit: Int, owner: String, until: Date, now: Date) throws -> [FanoutJob]
    /// The activity's valid update tokens in the job's range after its cursor, in fingerprint order,
    /// at most `limit` (an index serves it: a batch costs the same at the millionth token as at the first).
    func fanoutTokens(app: String, activityId: String, range: Int, after cursor: Fingerprint?, limit: Int) throws
        -> [FanoutToken]
    /// How many valid update tokens the activity has, in constant time whatever the audience: SQL stores
    /// keep the number in `activity_token_counts`, written by triggers on `tokens` (`SQLTokenCounts`).
    func validUpdateTokenCount(app: String, activityId: String) throws -> Int
    /// Records a batch's outcome if `owner` still holds the range: the cursor moves to `cursor`, the
    /// summary is kept and the lease ends (due again at `availableAt`). False when the lease was lost: the
    /// worker now holding it resumes from the cursor committed before.
    func advanceFanout(
        app: String, activityId: String, range: Int, cursor: Fingerprint, summary: String?, owner: String,
        availableAt: Date
    ) throws -> Bool
    /// Ends the pass `owner` holds (no token is left past its cursor): the row goes, unless a version
    /// newer than the pass's was requested meanwhile; then a pass starts again from the beginning for it.
    /// `sentVersion` is the oldest version the pass sent: when every send of the pass already carried
    /// the newest version requested (sends read it when they go out), no second pass is needed.
    func finishFanoutPass(app: String, activityId: String, range: Int, sentVersion: Int64, owner: String, now: Date)
        throws -> FanoutPassEnd
    /// Removes a range row `owner` holds (its activity is over or gone).
    func deleteFanout(app: String, activityId: String, range: Int, owner: String) throws
    /// The activity's range rows, by range (the console and tests read them).
    func fanoutJobs(app: String, activityId: String) throws -> [FanoutJob]

    // MARK: Tags and audiences

    /// The tags of a user or device, sorted.
    func tags(app: String, subject: TagSubject) throws -> [String]
    /// Replaces the tags of a user or device; an empty list clears them.
    func setTags(app: String, subject: TagSubject, tags: [String]) throws
    /// The users and devices that carry any of `tags`, one row per (subject, tag).
    func subjects(app: String, taggedWithAny tags: [String]) throws -> [SubjectTag]
    /// The users with a valid push-to-start or FCM token, sorted, after `after` (from the first when
    /// nil), at most `limit` of them: the `everyone` audience, read a page at a time.
    func userIds(app: String, after: String?, limit: Int) throws -> [String]
    /// The tokens of several users, of the given kinds (valid or not), a run of users per statement.
    func tokens(app: String, userIds: [String], kinds: [TokenKind]) throws -> [TokenRecord]
    /// Records users as members of a shared activity (a member already there stays once).
    func addMembers(app: String, activityId: String, userIds: [String]) throws
    /// A shared activity's members, sorted.
    func members(app: String, activityId: String) throws -> [String]
    /// Whether the user is a member of the shared activity.
    func isMember(app: String, activityId: String, userId: String) throws -> Bool
    /// Which of `userIds` are members of the shared activity, a run of users per statement.
    func members(app: String, activityId: String, among userIds: [String]) throws -> Set<String>
    /// How many members the shared activity has.
    func memberCount(app: String, activityId: String) throws -> Int
    /// An activity's timeline entries of one event (`start`), oldest first.
    func timeline(app: String, activityId: String, event: String) throws -> [TimelineEntry]
    /// How many of the activity's start sends ended each way (`started`, or the reason it will not
    /// reach the device), counted as `appendTimeline` wrote them (`TimelineEntry.startOutcome`).
    func startOutcomes(app: String, activityId: String) throws -> [String: Int]
    /// A page of a shared activity's members, sorted, after `after` (from the first when nil).
    func members(app: String, activityId: String, after: String?, limit: Int) throws -> [String]

    // MARK: Console sessions

    /// Stores a new session, or for one already stored records only its `lastSeenAt`.
    func saveConsoleSession(_ session: ConsoleSessionRecord) throws
    /// The session whose id has this digest, expired or not.
    func consoleSession(idDigest: String) throws -> ConsoleSessionRecord?
    /// Ends a session (sign-out); nothing happens for one not stored.
    func deleteConsoleSession(idDigest: String) throws
    /// Deletes every app's sessions created before `createdBefore` or last seen before `lastSeenBefore`,
    /// then all but the `keeping` most recently seen of `app`: one app's sign-ins never end another's.
    func trimConsoleSessions(app: String, createdBefore: Date, lastSeenBefore: Date, keeping: Int) throws
    /// How many sessions are stored, expired ones included until trimmed.
    func consoleSessionCount() throws -> Int

    // MARK: Device credential revocations

    /// Refuses the user's device credentials issued (`iat`, Unix seconds) before `notBefore` from now
    /// on; a later revocation already stored stays.
    func revokeDeviceCredentials(app: String, userId: String, notBefore: Int64) throws
    /// The time before which the user's credentials are refused, or nil when none was revoked.
    func deviceCredentialsNotBefore(app: String, userId: String) throws -> Int64?

    // MARK: Webhooks

    /// Queues webhook deliveries (their `id` is assigned; `attempts`, `lastError` and `failedAt` are ignored).
    /// Written in the transaction of the outcome they report, so neither is kept without the other.
    func enqueueWebhooks(_ deliveries: [WebhookDelivery]) throws
    /// Leases up to `limit` due deliveries to `owner` until `until`, counting an attempt each. A delivery is
    /// due only when no earlier one of its (app, endpoint, activity) is still waiting or in flight, so each
    /// receiver sees an activity's outcomes in order; a given-up one no longer holds the later ones back.
    /// Claims go round the endpoints, (app, endpoint) pairs: each endpoint's oldest due delivery first, then
    /// each one's second, and so on, and an endpoint never has more than `perEndpoint` leased at once (by any
    /// owner), so one receiver that hangs holds its own share and no other app's deliveries wait behind it.
    /// A row that cannot be read is given up with the error instead.
    func claimWebhooks(limit: Int, perEndpoint: Int, owner: String, until: Date, now: Date) throws
        -> [WebhookDelivery]
    /// Removes a delivered row, if `owner` still holds it.
    func completeWebhook(id: Int64, owner: String) throws
    /// Releases the row, if `owner` still holds it, to try again at `availableAt`.
    func rescheduleWebhook(id: Int64, owner: String, availableAt: Date, error: String) throws
    /// Gives the row up, if `owner` still holds it: kept with the error, never tried again.
    func failWebhook(id: Int64, owner: String, error: String, at: Date) throws
    /// Every queued delivery, given up or not, oldest first, at most `limit`.
    func webhookDeliveries(limit: Int) throws -> [WebhookDelivery]
    func webhookStats() throws -> WebhookQueueStats

    // MARK: Timeline

    /// Appends entries, and counts the start outcomes among them (`startOutcomes`) in the same transaction.
    func appendTimeline(_ entries: [TimelineEntry]) throws
    /// The newest `limit` entries of an activity, oldest first.
    func timeline(app: String, activityId: String, limit: Int) throws -> [TimelineEntry]
    /// The newest `limit` entries of an activity about any of `destinations`, oldest first: one member's
    /// view of a shared activity, read through its own entries and no one else's.
    func timeline(app: String, activityId: String, destinations: [TimelineDestination], limit: Int) throws
        -> [TimelineEntry]
    /// Deletes up to `limit` of the oldest timeline rows written before `before`; returns how many.
    /// Bounded, so a scheduler tick never holds the store for long.
    func pruneTimeline(before: Date, limit: Int) throws -> Int
    /// Deletes up to `limit` tokens invalidated before `before`; returns how many. Bounded too.
    func pruneTokens(invalidatedBefore before: Date, limit: Int) throws -> Int
}

extension StoreTransaction {
    /// Inserts the token, or replaces the one with the same (app, fingerprint).
    public func saveToken(_ token: TokenRecord) throws { try saveTokens([token]) }

    /// `enqueue` to tokens, by fingerprint.
    public func enqueue(
        app: String, activityId: String, fingerprints: [Fingerprint], version: Int64, availableAt: Date, now: Date
    ) throws {
        try enqueue(
            app: app, activityId: activityId, destinations: fingerprints.map { .token(fingerprint: $0) },
            version: version, availableAt: availableAt, now: now)
    }
}
