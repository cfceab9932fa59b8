import DropTrackCore
import DropTrackModel
import Foundation

/// Fan-out range jobs in SQL, shared by SQLite and PostgreSQL.
extension SQLTransaction {
    static let fanoutColumns = [
        "app", "activity_id", "range_index", "requested_version", "pass_version", "cursor_fingerprint", "summary",
        "first_queued_at", "available_at", "claimed_by", "claimed_until", "resumed",
    ]
    static let fanoutColumnList = fanoutColumns.joined(separator: ", ")

    static func fanoutJob(_ row: SQLRow) throws(StoreError) -> FanoutJob {
        let r = RowReader(row: row, table: "fanout_jobs", columns: fanoutColumns, keyColumns: [0, 1, 2])
        let range = try r.int(2)
        guard (0..<Int64(FanoutJob.rangeCount)).contains(range) else {
            throw r.corrupt(2, "is \(range), not a range from 0 to \(FanoutJob.rangeCount - 1)")
        }
        return FanoutJob(
            app: try r.text(0), activityId: try r.text(1), range: Int(range), requestedVersion: try r.int(3),
            passVersion: try r.int(4), cursor: try r.fingerprintOrEmpty(5), summary: r.optionalText(6),
            firstQueuedAt: try r.date(7), availableAt: try r.date(8), claimedBy: r.optionalText(9),
            claimedUntil: try r.optionalDate(10), resumed: try r.bool(11))
    }

    @discardableResult
    private func fanoutQuery(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] {
        try connection.query(connection.dialect.render(sql), parameters)
    }

    @discardableResult
    private func fanoutExecute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        try connection.execute(connection.dialect.render(sql), parameters)
    }

    private static let rangeKey = "app = ? AND activity_id = ? AND range_index = ?"

    private static func rangeKey(_ app: String, _ activityId: String, _ range: Int) -> [SQLValue] {
        [.text(app), .text(activityId), .int(Int64(range))]
    }

    func requestFanout(app: String, activityId: String, version: Int64, availableAt: Date, now: Date) throws {
        var parameters: [SQLValue] = []
        for range in 0..<FanoutJob.rangeCount {
            parameters += [
                .text(app), .text(activityId), .int(Int64(range)), .int(version), .int(version), SQLValue(now),
                SQLValue(availableAt),
            ]
        }
        // A range not yet started takes the newer version as its pass's: a burst before the first claim
        // is one pass, not two.
        try fanoutExecute(
            """
            INSERT INTO fanout_jobs (app, activity_id, range_index, requested_version, pass_version, first_queued_at, available_at)
            VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: FanoutJob.rangeCount).joined(separator: ", "))
            ON CONFLICT (app, activity_id, range_index) DO UPDATE SET
              requested_version = CASE WHEN excluded.requested_version > fanout_jobs.requested_version
                THEN excluded.requested_version ELSE fanout_jobs.requested_version END,
              pass_version = CASE WHEN fanout_jobs.claimed_by IS NULL AND fanout_jobs.cursor_fingerprint = ''
                AND excluded.requested_version > fanout_jobs.pass_version
                THEN excluded.requested_version ELSE fanout_jobs.pass_version END,
              available_at = CASE WHEN fanout_jobs.claimed_by IS NULL AND excluded.available_at < fanout_jobs.available_at
                THEN excluded.available_at ELSE fanout_jobs.available_at END
            """, parameters)
    }

    func enqueueFailedSend(
        app: String, activityId: String, destination: OutboxDestination, version: Int64, reachedProvider: Bool,
        error: String, availableAt: Date, holder: String?, now: Date
    ) throws -> OutboxEntry? {
        let key: [SQLValue] = [.text(app), .text(activityId), .text(destination.stored)]
        let raised = try fanoutExecute(
            """
            UPDATE outbox SET requested_version = ?
            WHERE app = ? AND activity_id = ? AND token_fingerprint = ? AND requested_version < ?
            """, [.int(version)] + key + [.int(version)])
        let queued = try fanoutQuery(
            "SELECT 1 FROM outbox WHERE app = ? AND activity_id = ? AND token_fingerprint = ?", key)
        if raised > 0 || !queued.isEmpty { return nil }
        let rows = try fanoutQuery(
            """
            INSERT INTO outbox (app, activity_id, token_fingerprint, requested_version, available_at, first_queued_at,
              attempts, last_error, claimed_by, claimed_until)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            RETURNING \(Self.outboxColumnList)
            """,
            key + [
                .int(version), SQLValue(availableAt), SQLValue(now), .int(reachedProvider ? 1 : 0),
                .text(reachedProvider ? error : Self.unsentMark + error), SQLValue(holder),
                SQLValue(holder == nil ? nil : availableAt),
            ])
        return try rows.first.map(Self.outbox)
    }

    func claimFanout(app: String, limit: Int, owner: String, until: Date, now: Date) throws -> [FanoutJob] {
        let rows = try fanoutQuery(
            """
            UPDATE fanout_jobs SET resumed = CASE WHEN claimed_by IS NULL THEN 0 ELSE 1 END, claimed_by = ?,
              claimed_until = ?, available_at = ?,
              pass_version = CASE WHEN cursor_fingerprint = '' THEN requested_version ELSE pass_version END
            WHERE (app, activity_id, range_index) IN (
              SELECT app, activity_id, range_index FROM fanout_jobs WHERE app = ? AND available_at <= ?
              ORDER BY available_at, activity_id, range_index LIMIT ?\(connection.dialect.claimLock))
            RETURNING \(Self.fanoutColumnList)
            """,
            [.text(owner), SQLValue(until), SQLValue(until), .text(app), SQLValue(now), .int(Int64(limit))])
        let jobs = try Self.readClaimed(rows, Self.fanoutJob, setAside: quarantineFanout)
        return jobs.sorted { ($0.activityId, $0.range) < ($1.activityId, $1.range) }
    }

    /// Moves a range row that cannot be read into the dead letters, as far as its values allow, and
    /// deletes it; false when its key finds no row (a NULL in it), so the error stands. A range row has
    /// no id: its dead letter takes the next negative one, which no outbox row's (positive) id reaches,
    /// under a lock that replicas doing the same wait on.
    /// Its destination is `range:<hex digit>` as in the timeline, `range:<number>` for a number outside
    /// 0…15, or `range:?` for a value that is no number (never repeated: it could be anything).
    private func quarantineFanout(_ row: SQLRow, error: String) throws -> Bool {
        // The key as stored, so even a key that does not read as a record still finds its row.
        let key = Array(row.values[0...2])
        guard !key.contains(.null) else { return false }
        let destination =
            switch row.int(2) {
            case .some(let range) where (0..<Int64(FanoutJob.rangeCount)).contains(range):
                TimelineDestination.range(Int(range)).stored
            case .some(let number): "range:\(number)"
            case .none: "range:?"
            }
        if let lock = connection.dialect.negativeDeadLetterIdLock { try fanoutQuery(lock, []) }
        let moved = try fanoutExecute(
            """
            INSERT INTO dead_letters (id, app, activity_id, token_fingerprint, requested_version, first_queued_at, attempts, last_error)
            SELECT (SELECT COALESCE(MIN(id), 0) FROM dead_letters WHERE id < 0) - 1, app, activity_id, ?,
              COALESCE(requested_version, 0), COALESCE(first_queued_at, 0), 0, ?
            FROM fanout_jobs WHERE \(Self.rangeKey)
            """, [.text(destination), .text(error)] + key)
        guard moved > 0 else { return false }
        try fanoutExecute("DELETE FROM fanout_jobs WHERE \(Self.rangeKey)", key)
        return true
    }

    func fanoutTokens(app: String, activityId: String, range: Int, after cursor: Fingerprint?, limit: Int) throws
        -> [FanoutToken]
    {
        // The bounds are left out where a range has none, so three statement shapes in all. The partial
        // index tokens_activity_fanout serves each in fingerprint order and holds every column read, so
        // no token's table row is visited (PostgreSQL: an index-only scan once the table is vacuumed).
        let (lower, upper) = FanoutJob.bounds(of: range)
        var clauses = ""
        var parameters: [SQLValue] = [.text(app), .text(activityId), .text(cursor?.value ?? "")]
        if let lower {
            clauses += " AND fingerprint >= ?"
            parameters.append(.text(lower))
        }
        if let upper {
            clauses += " AND fingerprint < ?"
            parameters.append(.text(upper))
        }
        return try fanoutQuery(
            """
            SELECT \(Self.fanoutTokenColumnList) FROM tokens
            WHERE app = ? AND activity_id = ? AND kind = 'activity' AND invalidated_at IS NULL AND fingerprint > ?\(clauses)
            ORDER BY fingerprint LIMIT ?
            """, parameters + [.int(Int64(limit))]
        ).map(Self.fanoutToken)
    }

    static let fanoutTokenColumns = ["fingerprint", "token", "environment"]
    static let fanoutTokenColumnList = fanoutTokenColumns.joined(separator: ", ")

    static func fanoutToken(_ row: SQLRow) throws(StoreError) -> FanoutToken {
        let r = RowReader(row: row, table: "tokens", columns: fanoutTokenColumns, keyColumns: [0])
        return FanoutToken(
            fingerprint: try r.fingerprint(0), token: DeviceToken(try r.text(1)),
            environment: try r.optionalValue(2, as: APNsEnvironment.self))
    }

    /// One primary-key read of the count the triggers keep (`SQLTokenCounts`), whatever the audience.
    func validUpdateTokenCount(app: String, activityId: String) throws -> Int {
        Int(
            try fanoutQuery(
                "SELECT valid_update_tokens FROM activity_token_counts WHERE app = ? AND activity_id = ?",
                [.text(app), .text(activityId)]
            ).first?.int(0) ?? 0)
    }

    func advanceFanout(
        app: String, activityId: String, range: Int, cursor: Fingerprint, summary: String?, owner: String,
        availableAt: Date
    ) throws -> Bool {
        try fanoutExecute(
            """
            UPDATE fanout_jobs SET cursor_fingerprint = ?, summary = ?, claimed_by = NULL, claimed_until = NULL,
              available_at = ?
            WHERE \(Self.rangeKey) AND claimed_by = ?
            """,
            [.text(cursor.value), SQLValue(summary), SQLValue(availableAt)] + Self.rangeKey(app, activityId, range) + [
                .text(owner)
            ]) > 0
    }

    func finishFanoutPass(app: String, activityId: String, range: Int, sentVersion: Int64, owner: String, now: Date)
        throws -> FanoutPassEnd
    {
        let key = Self.rangeKey(app, activityId, range)
        let removed = try fanoutExecute(
            """
            DELETE FROM fanout_jobs WHERE \(Self.rangeKey) AND claimed_by = ?
              AND (requested_version <= pass_version OR requested_version <= ?)
            """, key + [.text(owner), .int(sentVersion)])
        if removed > 0 { return .removed }
        let restarted = try fanoutQuery(
            """
            UPDATE fanout_jobs SET cursor_fingerprint = '', summary = NULL, pass_version = requested_version,
              claimed_by = NULL, claimed_until = NULL, available_at = ?
            WHERE \(Self.rangeKey) AND claimed_by = ?
            RETURNING requested_version
            """, [SQLValue(now)] + key + [.text(owner)])
        guard let version = restarted.first?.int(0) else { return .lost }
        return .restarted(version: version)
    }

    func deleteFanout(app: String, activityId: String, range: Int, owner: String) throws {
        _ = try fanoutExecute(
            "DELETE FROM fanout_jobs WHERE \(Self.rangeKey) AND claimed_by = ?",
            Self.rangeKey(app, activityId, range) + [.text(owner)])
    }

    func fanoutJobs(app: String, activityId: String) throws -> [FanoutJob] {
        try fanoutQuery(
            "SELECT \(Self.fanoutColumnList) FROM fanout_jobs WHERE app = ? AND activity_id = ? ORDER BY range_index",
            [.text(app), .text(activityId)]
        ).map(Self.fanoutJob)
    }

    /// The range rows of an activity (at most `FanoutJob.rangeCount`), for `pendingOutbox`.
    func fanoutCount(app: String, activityId: String) throws -> Int {
        Int(
            try fanoutQuery(
                "SELECT COUNT(*) FROM fanout_jobs WHERE app = ? AND activity_id = ?", [.text(app), .text(activityId)]
            ).first?.int(0) ?? 0)
    }

    /// Apps with a range due now (few rows: a constant number per activity with a fan-out under way).
    func appsWithDueFanout(now: Date) throws -> [String] {
        try fanoutQuery("SELECT DISTINCT app FROM fanout_jobs WHERE available_at <= ?", [SQLValue(now)])
            .compactMap { $0.text(0) }
    }

    /// The count and oldest first request of the range rows, for `outboxStats`.
    func fanoutStats() throws -> (count: Int, oldest: Date?) {
        guard let row = try fanoutQuery("SELECT COUNT(*), MIN(first_queued_at) FROM fanout_jobs", []).first else {
            return (0, nil)
        }
        let oldest = try RowReader(
            row: row, table: "fanout_jobs", columns: ["COUNT(*)", "first_queued_at"], keyColumns: [],
            keyWithoutColumns: "MIN(first_queued_at)"
        ).optionalDate(1)
        return (Int(row.int(0) ?? 0), oldest)
    }
}
