import DropTrackContract
import DropTrackCore
import Foundation

/// The SQL engines differ in a few places; everything else is shared.
enum SQLDialect {
    case sqlite, postgres

    /// `?` placeholders as the engine wants them (`$1`, `$2`, … for PostgreSQL).
    func render(_ sql: String) -> String {
        guard self == .postgres else { return sql }
        var out = ""
        var index = 0
        for character in sql {
            if character == "?" {
                index += 1
                out += "$\(index)"
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// How a claim locks rows: SKIP LOCKED lets PostgreSQL replicas claim different rows at once.
    var claimLock: String { self == .postgres ? " FOR UPDATE SKIP LOCKED" : "" }
    /// A row lock inside a transaction (SQLite locks the whole database on write instead).
    var rowLock: String { self == .postgres ? " FOR UPDATE" : "" }
}

/// A connection that runs SQL; one per transaction at a time.
protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs a statement and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow]
    /// Runs a statement and returns the number of rows changed.
    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int
}

/// `StoreTransaction` in SQL, shared by SQLite and PostgreSQL.
final class SQLTransaction: StoreTransaction {
    let connection: any SQLConnection
    private var dialect: SQLDialect { connection.dialect }

    init(connection: any SQLConnection) { self.connection = connection }

    private func query(_ sql: String, _ parameters: [SQLValue] = []) throws -> [SQLRow] {
        try connection.query(dialect.render(sql), parameters)
    }

    @discardableResult
    private func execute(_ sql: String, _ parameters: [SQLValue] = []) throws -> Int {
        try connection.execute(dialect.render(sql), parameters)
    }

    func databaseTime() throws -> Date? {
        // SQLite runs inside this process: its clock is the process's.
        guard dialect == .postgres else { return nil }
        // clock_timestamp(), not now(): now() is frozen at the transaction's start, which may be
        // before an earlier holder of the activity's row lock committed its timestamp.
        return try query("SELECT EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION").first?.double(0).map {
            Date(timeIntervalSince1970: $0)
        }
    }

    // MARK: Tokens

    func token(app: String, fingerprint: String) throws -> TokenRecord? {
        try query(
            "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND fingerprint = ?",
            [.text(app), .text(fingerprint)]
        )
        .first.map(Self.token)
    }

    func saveTokens(_ tokens: [TokenRecord]) throws {
        // Many rows per statement, as in `enqueue`: an import is a round trip per run, not per token.
        for run in Self.runs(tokens.count, limit: 128) {
            var values: [SQLValue] = []
            values.reserveCapacity(run.count * 14)
            for token in tokens[run] {
                values += [
                    .text(token.app), .text(token.fingerprint), .text(token.kind.rawValue),
                    .text(token.token.wireValue),
                    SQLValue(token.userId), .text(token.deviceId), SQLValue(token.attributesType),
                    SQLValue(token.activityId), SQLValue(token.environment?.rawValue), SQLValue(token.createdAt),
                    SQLValue(token.lastSeenAt), SQLValue(token.invalidatedAt), SQLValue(token.invalidReason?.stored),
                    SQLValue(token.deviceText),
                ]
            }
            try execute(
                """
                INSERT INTO tokens (\(Self.tokenColumnList))
                VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: run.count).joined(separator: ", "))
                ON CONFLICT (app, fingerprint) DO UPDATE SET kind = excluded.kind, token = excluded.token,
                  user_id = excluded.user_id, device_id = excluded.device_id, attributes_type = excluded.attributes_type,
                  activity_id = excluded.activity_id, environment = excluded.environment, created_at = excluded.created_at,
                  last_seen_at = excluded.last_seen_at, invalidated_at = excluded.invalidated_at,
                  invalid_reason = excluded.invalid_reason, device = excluded.device
                """, values)
        }
    }

    // `+created_at` in the three reads below: with a plain `created_at`, SQLite (no statistics) read the
    // app's tokens in order through `tokens_recent` to skip a sort, every token of the app to find a
    // user's few (0.47 s from a cold cache with 1M tokens in the app, in each accepted event).
    func tokens(app: String, userId: String, kinds: [TokenKind]) throws -> [TokenRecord] {
        guard !kinds.isEmpty else { return [] }
        let marks = kinds.map { _ in "?" }.joined(separator: ", ")
        return try query(
            "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND user_id = ? AND kind IN (\(marks)) ORDER BY +created_at",
            [.text(app), .text(userId)] + kinds.map { .text($0.rawValue) }
        ).map(Self.token)
    }

    func tokens(app: String, activityId: String) throws -> [TokenRecord] {
        try query(
            "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND activity_id = ? AND kind = 'activity' ORDER BY +created_at",
            [.text(app), .text(activityId)]
        ).map(Self.token)
    }

    func channelSubscriptions(app: String, activityId: String) throws -> [TokenRecord] {
        try query(
            "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND activity_id = ? AND kind = 'channel_subscription' ORDER BY +created_at",
            [.text(app), .text(activityId)]
        ).map(Self.token)
    }

    func tokens(app: String, deviceIds: [String]) throws -> [TokenRecord] {
        try tokens(app: app, where: "device_id", in: deviceIds).sorted { $0.createdAt < $1.createdAt }
    }

    func validTokens(app: String, deviceIds: [String]) throws -> [TokenRecord] {
        try tokens(app: app, where: "device_id", in: deviceIds, validOnly: true).sorted { $0.createdAt < $1.createdAt }
    }

    func tokens(app: String, fingerprints: [String]) throws -> [TokenRecord] {
        try tokens(app: app, where: "fingerprint", in: fingerprints)
    }

    /// An app's tokens whose `column` is one of `values`, a run of values per statement.
    private func tokens(app: String, where column: String, in values: [String], validOnly: Bool = false) throws
        -> [TokenRecord]
    {
        var found: [TokenRecord] = []
        let valid = validOnly ? " AND invalidated_at IS NULL" : ""
        try eachRun(of: values) { marks, run in
            found += try query(
                "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND \(column) IN (\(marks))\(valid)",
                [.text(app)] + run
            ).map(Self.token)
        }
        return found
    }

    func invalidateTokens(app: String, fingerprints: [String], reason: InvalidationReason, at: Date) throws {
        try eachRun(of: fingerprints) { marks, values in
            try execute(
                """
                UPDATE tokens SET invalidated_at = ?, invalid_reason = ?
                WHERE app = ? AND fingerprint IN (\(marks)) AND invalidated_at IS NULL
                """, [SQLValue(at), .text(reason.stored), .text(app)] + values)
        }
    }

    /// Calls `body` for `keys` (duplicates dropped) cut into runs (see `runs`), with the run's
    /// `?, ?, …` and its values.
    func recentTokens(app: String, limit: Int) throws -> [TokenRecord] {
        try query(
            "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? ORDER BY created_at DESC, fingerprint DESC LIMIT ?",
            [.text(app), .int(Int64(max(0, limit)))]
        ).map(Self.token)
    }

    func recentInvalidations(app: String, limit: Int) throws -> [TokenRecord] {
        try query(
            "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND invalidated_at IS NOT NULL ORDER BY invalidated_at DESC, fingerprint DESC LIMIT ?",
            [.text(app), .int(Int64(max(0, limit)))]
        ).map(Self.token)
    }

    private func eachRun(of keys: [String], _ body: (String, [SQLValue]) throws -> Void) throws {
        var seen = Set<String>()
        let unique = keys.filter { seen.insert($0).inserted }
        for run in Self.runs(unique.count) {
            try body(Array(repeating: "?", count: run.count).joined(separator: ", "), unique[run].map { .text($0) })
        }
    }

    // MARK: Activities

    private func values(_ activity: ActivityRecord) -> [SQLValue] {
        [
            .text(activity.app), .text(activity.id), .text(activity.userId), .text(activity.attributesType),
            SQLValue(json: activity.attributes), SQLValue(json: activity.contentState), .text(activity.state.rawValue),
            .int(activity.version), .int(activity.timestamp), .text(activity.event.rawValue),
            .int(Int64(activity.priority)),
            .int(activity.priorityDowngraded ? 1 : 0), SQLValue(json: activity.alert), SQLValue(activity.staleDate),
            SQLValue(activity.dismissalDate), SQLValue(activity.relevanceScore), SQLValue(activity.idempotencyKey),
            SQLValue(json: activity.startResponse),
            SQLValue(json: .array(activity.priority10Times.map { .number(Double($0)) })), SQLValue(activity.createdAt),
            SQLValue(activity.updatedAt), SQLValue(activity.startAt), SQLValue(activity.endAt),
            SQLValue(activity.dismissAt), SQLValue(json: activity.schedule), SQLValue(activity.channelId),
            SQLValue(json: activity.mapperState), SQLValue(activity.channelPolicy.map(Int64.init)),
        ]
    }

    func activity(app: String, id: String) throws -> ActivityRecord? {
        try query(
            "SELECT \(Self.activityColumnList) FROM activities WHERE app = ? AND id = ?", [.text(app), .text(id)]
        ).first.map(Self.activity)
    }

    func activityForUpdate(app: String, id: String) throws -> ActivityRecord? {
        try query(
            "SELECT \(Self.activityColumnList) FROM activities WHERE app = ? AND id = ?\(dialect.rowLock)",
            [.text(app), .text(id)]
        ).first.map(Self.activity)
    }

    func activity(app: String, idempotencyKey: String) throws -> ActivityRecord? {
        try query(
            "SELECT \(Self.activityColumnList) FROM activities WHERE app = ? AND idempotency_key = ?",
            [.text(app), .text(idempotencyKey)]
        ).first.map(Self.activity)
    }

    func insertActivity(_ activity: ActivityRecord) throws {
        let marks = Array(repeating: "?", count: values(activity).count).joined(separator: ", ")
        try execute("INSERT INTO activities (\(Self.activityColumnList)) VALUES (\(marks))", values(activity))
    }

    func updateActivity(_ activity: ActivityRecord) throws {
        let assignments = Self.activityColumns.dropFirst(2).map { "\($0) = ?" }.joined(separator: ", ")
        var parameters = Array(values(activity).dropFirst(2))
        parameters += [.text(activity.app), .text(activity.id)]
        try execute("UPDATE activities SET \(assignments) WHERE app = ? AND id = ?", parameters)
    }

    func recentActivities(app: String, state: ActivityState?, limit: Int) throws -> [ActivityRecord] {
        let stateClause = state == nil ? "" : " AND state = ?"
        let parameters: [SQLValue] =
            [.text(app)] + (state.map { [.text($0.rawValue)] } ?? []) + [.int(Int64(max(0, limit)))]
        return try query(
            "SELECT \(Self.activityColumnList) FROM activities WHERE app = ?\(stateClause) ORDER BY created_at DESC, id DESC LIMIT ?",
            parameters
        ).map(Self.activity)
    }

    func activitiesNeedingAttention(now: Date) throws -> [ActivityRecord] {
        let seconds = now.timeIntervalSince1970
        // stale_date is whole seconds (BIGINT): PostgreSQL types the parameter as BIGINT and refuses a
        // fraction, and for a whole number `stale <= now` is `stale <= floor(now)`.
        let wholeSeconds = Int64(seconds.rounded(.down))
        return try query(
            """
            SELECT \(Self.activityColumnList) FROM activities WHERE
              (state = 'pending' AND (start_at IS NULL OR start_at <= ?))
              OR (state IN ('active', 'stale') AND end_at IS NOT NULL AND end_at <= ?)
              OR (state = 'active' AND stale_date IS NOT NULL AND stale_date <= ?)
              OR (state IN ('active', 'stale') AND schedule IS NOT NULL)
              OR (state = 'ended' AND dismiss_at IS NOT NULL AND dismiss_at <= ?)
            ORDER BY created_at
            """, [.double(seconds), .double(seconds), .int(wholeSeconds), .double(seconds)]
        ).map(Self.activity)
    }

    // MARK: Outbox

    /// `0..<count` cut into runs of `limit` rows, then of powers of two: a statement built per run takes
    /// one of a few shapes, so the engines' statement caches stay small. `limit` is a power of two.
    static func runs(_ count: Int, limit: Int = 256) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        while start < count {
            let left = count - start
            let length = left >= limit ? limit : 1 << (Int.bitWidth - 1 - left.leadingZeroBitCount)
            runs.append(start..<start + length)
            start += length
        }
        return runs
    }

    func enqueue(
        app: String, activityId: String, destinations: [OutboxDestination], version: Int64, availableAt: Date,
        now: Date
    ) throws {
        // Many rows per statement: a fan-out is one round trip per run instead of one per token, which
        // matters for PostgreSQL (the transaction holds the activity's row lock meanwhile). Each token
        // once: PostgreSQL refuses to upsert one row twice in a statement, and coalescing makes
        // duplicates one row anyway.
        var seen = Set<OutboxDestination>()
        let unique = destinations.filter { seen.insert($0).inserted }
        for run in Self.runs(unique.count) {
            var parameters: [SQLValue] = []
            parameters.reserveCapacity(run.count * 6)
            for destination in unique[run] {
                parameters += [
                    .text(app), .text(activityId), .text(destination.stored), .int(version), SQLValue(availableAt),
                    SQLValue(now),
                ]
            }
            try execute(
                """
                INSERT INTO outbox (app, activity_id, token_fingerprint, requested_version, available_at, first_queued_at)
                VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?)", count: run.count).joined(separator: ", "))
                ON CONFLICT (app, activity_id, token_fingerprint) DO UPDATE SET
                  requested_version = CASE WHEN excluded.requested_version > outbox.requested_version
                    THEN excluded.requested_version ELSE outbox.requested_version END,
                  available_at = CASE WHEN outbox.claimed_by IS NULL AND excluded.available_at < outbox.available_at
                    THEN excluded.available_at ELSE outbox.available_at END
                """, parameters)
        }
    }

    func claim(app: String, limit: Int, owner: String, until: Date, now: Date) throws -> [OutboxEntry] {
        let rows = try query(
            """
            UPDATE outbox SET in_doubt = CASE WHEN claimed_by IS NULL THEN 0 ELSE 1 END, claimed_by = ?,
              claimed_until = ?, available_at = ?, attempts = attempts + 1
            WHERE id IN (
              SELECT id FROM outbox WHERE app = ? AND available_at <= ? ORDER BY available_at, id LIMIT ?\(dialect.claimLock))
            RETURNING \(Self.outboxColumnList)
            """,
            [.text(owner), SQLValue(until), SQLValue(until), .text(app), SQLValue(now), .int(Int64(limit))])
        var entries: [OutboxEntry] = []
        entries.reserveCapacity(rows.count)
        for row in rows {
            do {
                entries.append(try Self.outbox(row))
            } catch {
                // One unreadable row must not stop the app's every send: it goes to the dead letters with the
                // error, where an operator finds it, and the rest of the claim goes on.
                let failure: StoreError = error
                guard failure.code == .corruptRow, let id = row.int(0) else { throw failure }
                try quarantineOutbox(id: id, error: failure.message)
            }
        }
        return entries.sorted { $0.id < $1.id }
    }

    /// Moves an outbox row that cannot be read into the dead letters, as far as its values allow.
    private func quarantineOutbox(id: Int64, error: String) throws {
        try execute(
            """
            INSERT INTO dead_letters (id, app, activity_id, token_fingerprint, requested_version, first_queued_at, attempts, last_error)
            SELECT id, COALESCE(app, ''), COALESCE(activity_id, ''), COALESCE(token_fingerprint, ''),
              COALESCE(requested_version, 0), COALESCE(first_queued_at, 0), COALESCE(attempts, 0), ?
            FROM outbox WHERE id = ?
            """, [.text(error), .int(id)])
        try execute("DELETE FROM outbox WHERE id = ?", [.int(id)])
    }

    func appsWithDueWork(now: Date) throws -> [String] {
        let rows = try query(
            // A loose index scan: one probe per app instead of a pass over every queued row.
            """
            WITH RECURSIVE apps(app) AS (
              SELECT MIN(app) FROM outbox
              UNION ALL SELECT (SELECT MIN(app) FROM outbox WHERE app > apps.app) FROM apps WHERE app IS NOT NULL)
            SELECT app FROM apps WHERE app IS NOT NULL
              AND EXISTS (SELECT 1 FROM outbox o WHERE o.app = apps.app AND o.available_at <= ?)
            ORDER BY app
            """, [SQLValue(now)]
        ).compactMap { $0.text(0) }
        return Array(Set(rows + (try appsWithDueFanout(now: now)))).sorted()
    }

    func completeOutbox(ids: [Int64], sentVersion: Int64, owner: String, now: Date) throws {
        for run in Self.runs(ids.count) {
            let marks = Array(repeating: "?", count: run.count).joined(separator: ", ")
            let values = ids[run].map { SQLValue.int($0) }
            try execute(
                "DELETE FROM outbox WHERE id IN (\(marks)) AND requested_version <= ? AND claimed_by = ?",
                values + [.int(sentVersion), .text(owner)])
            // What is left asked for a newer version while this one was in flight.
            try execute(
                "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL, available_at = ?, attempts = 0 WHERE id IN (\(marks)) AND claimed_by = ?",
                [SQLValue(now)] + values + [.text(owner)])
        }
    }

    func rescheduleOutbox(id: Int64, owner: String, availableAt: Date, error: String) throws {
        try execute(
            "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL, available_at = ?, last_error = ? WHERE id = ? AND claimed_by = ?",
            [SQLValue(availableAt), .text(error), .int(id), .text(owner)])
    }

    func releaseUnsent(ids: [Int64], owner: String, availableAt: Date, error: String) throws {
        for run in Self.runs(ids.count) {
            let marks = Array(repeating: "?", count: run.count).joined(separator: ", ")
            try execute(
                """
                UPDATE outbox SET claimed_by = NULL, claimed_until = NULL, available_at = ?, last_error = ?,
                  attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END
                WHERE id IN (\(marks)) AND claimed_by = ?
                """,
                [SQLValue(availableAt), .text(Self.unsentMark + error)] + ids[run].map { SQLValue.int($0) } + [
                    .text(owner)
                ])
        }
    }

    /// Marks rows released unsent, so `expediteUnsent` finds them.
    static let unsentMark = "unsent: "

    func expediteUnsent(app: String, now: Date) throws -> Int {
        try query(
            """
            UPDATE outbox SET available_at = ?
            WHERE app = ? AND claimed_by IS NULL AND available_at > ? AND last_error LIKE 'unsent: %'
            RETURNING id
            """, [SQLValue(now), .text(app), SQLValue(now)]
        ).count
    }

    func deadLetterOutbox(id: Int64, owner: String, error: String) throws {
        try execute(
            """
            INSERT INTO dead_letters (id, app, activity_id, token_fingerprint, requested_version, first_queued_at, attempts, last_error)
            SELECT id, app, activity_id, token_fingerprint, requested_version, first_queued_at, attempts, ? FROM outbox
            WHERE id = ? AND claimed_by = ?
            """, [.text(error), .int(id), .text(owner)])
        try deleteOutbox(id: id, owner: owner)
    }

    func deleteOutbox(id: Int64, owner: String) throws {
        try execute("DELETE FROM outbox WHERE id = ? AND claimed_by = ?", [.int(id), .text(owner)])
    }

    func pendingOutbox(app: String, activityId: String) throws -> Int {
        Int(
            try query("SELECT COUNT(*) FROM outbox WHERE app = ? AND activity_id = ?", [.text(app), .text(activityId)])
                .first?.int(0) ?? 0) + (try fanoutCount(app: app, activityId: activityId))
    }

    func hasPendingOutbox(app: String, activityId: String) throws -> Bool {
        try fanoutCount(app: app, activityId: activityId) > 0
            || !(try query(
                "SELECT 1 FROM outbox WHERE app = ? AND activity_id = ? LIMIT 1", [.text(app), .text(activityId)]))
                .isEmpty
    }

    func outboxStats() throws -> OutboxStats {
        let row = try query("SELECT COUNT(*), MIN(first_queued_at) FROM outbox").first
        let dead = try query("SELECT COUNT(*) FROM dead_letters").first?.int(0) ?? 0
        // The oldest time goes to metrics and readiness: a corrupt one must not read as "just now".
        let oldest = try row.map {
            try RowReader(
                row: $0, table: "outbox", columns: ["COUNT(*)", "first_queued_at"], keyColumns: [],
                keyWithoutColumns: "MIN(first_queued_at)"
            ).optionalDate(1)
        }
        let ranges = try fanoutStats()
        let oldestOfAll = [oldest ?? nil, ranges.oldest].compactMap { $0 }.min()
        return OutboxStats(
            depth: Int(row?.int(0) ?? 0) + ranges.count, oldestQueuedAt: oldestOfAll, deadLetters: Int(dead))
    }

    // MARK: Timeline

    func appendTimeline(_ entries: [TimelineEntry]) throws {
        // Many rows per statement, in order (ids follow the order of the VALUES list).
        for run in Self.runs(entries.count) {
            var parameters: [SQLValue] = []
            parameters.reserveCapacity(run.count * 14)
            for entry in entries[run] {
                parameters += [
                    .text(entry.app), .text(entry.activityId), SQLValue(entry.at), .text(entry.destination),
                    .text(entry.provider.rawValue), .text(entry.event), .int(entry.version), .int(Int64(entry.status)),
                    .text(entry.reason), .text(entry.remedy), .double(entry.latencyMs), .int(Int64(entry.priority)),
                    .int(Int64(entry.attempt)), SQLValue(entry.note),
                ]
            }
            let rows = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: run.count)
            try execute(
                """
                INSERT INTO timeline (app, activity_id, at, destination, provider, event, version, status, reason, remedy,
                  latency_ms, priority, attempt, note) VALUES \(rows.joined(separator: ", "))
                """, parameters)
        }
    }

    func pruneTokens(invalidatedBefore before: Date, limit: Int) throws -> Int {
        try execute(
            """
            DELETE FROM tokens WHERE (app, fingerprint) IN (
              SELECT app, fingerprint FROM tokens WHERE invalidated_at IS NOT NULL AND invalidated_at < ?
              ORDER BY invalidated_at LIMIT ?)
            """, [SQLValue(before), .int(Int64(limit))])
    }

    func pruneTimeline(before: Date, limit: Int) throws -> Int {
        // Rows are appended in time order, so the oldest ids are the oldest rows: look at the first
        // one before deleting, so a tick with nothing to delete reads one row, not the table.
        guard let row = try query("SELECT at, id FROM timeline ORDER BY id LIMIT 1").first,
            try RowReader(row: row, table: "timeline", columns: ["at", "id"], keyColumns: [1]).date(0) < before
        else { return 0 }
        return try execute(
            "DELETE FROM timeline WHERE id IN (SELECT id FROM timeline ORDER BY id LIMIT ?) AND at < ?",
            [.int(Int64(limit)), SQLValue(before)])
    }

    func timeline(app: String, activityId: String, limit: Int) throws -> [TimelineEntry] {
        try query(
            """
            SELECT \(Self.timelineColumnList) FROM timeline WHERE app = ? AND activity_id = ? ORDER BY id DESC LIMIT ?
            """, [.text(app), .text(activityId), .int(Int64(limit))]
        ).reversed().map(Self.timelineEntry)
    }
}
