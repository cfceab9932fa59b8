import DropTrackContract
import DropTrackCore
import DropTrackModel
import Foundation

/// The outbox in SQL: per-destination rows, their claims (leases), outcomes and dead letters.
extension SQLTransaction {
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
        let entries = try Self.readClaimed(rows, Self.outbox) { row, error in
            guard let id = row.int(0) else { return false }
            try quarantineOutbox(id: id, error: error)
            return true
        }
        return entries.sorted { $0.id < $1.id }
    }

    /// Reads claimed rows; one that cannot be read is handed to `setAside` (which moves it to the dead
    /// letters and returns true) and the rest go on: one unreadable row must not stop every send of its
    /// app. The error stands when `setAside` cannot find the row.
    static func readClaimed<Record>(
        _ rows: [SQLRow], _ read: (SQLRow) throws(StoreError) -> Record,
        setAside: (SQLRow, _ error: String) throws -> Bool
    ) throws -> [Record] {
        var records: [Record] = []
        records.reserveCapacity(rows.count)
        for row in rows {
            do {
                records.append(try read(row))
            } catch {
                guard error.code == .corruptRow, try setAside(row, error.message) else { throw error }
            }
        }
        return records
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

    func pendingOutbox(app: String, activityId: String, fingerprints: [Fingerprint]) throws -> Int {
        var count = 0
        for run in Self.runs(fingerprints.count) {
            let marks = Array(repeating: "?", count: run.count).joined(separator: ", ")
            count += Int(
                try query(
                    "SELECT COUNT(*) FROM outbox WHERE app = ? AND activity_id = ? AND token_fingerprint IN (\(marks))",
                    [.text(app), .text(activityId)] + fingerprints[run].map { .text($0.value) }
                ).first?.int(0) ?? 0)
        }
        return count
    }

    func hasPendingOutbox(app: String, activityId: String) throws -> Bool {
        try fanoutCount(app: app, activityId: activityId) > 0
            || !(try query(
                "SELECT 1 FROM outbox WHERE app = ? AND activity_id = ? LIMIT 1", [.text(app), .text(activityId)]))
                .isEmpty
    }

    func outboxDepthByApp() throws -> [String: Int] {
        var depths: [String: Int] = [:]
        for table in ["outbox", "fanout_jobs"] {
            for row in try query("SELECT app, COUNT(*) FROM \(table) GROUP BY app") {
                let reader = RowReader(row: row, table: table, columns: ["app", "COUNT(*)"], keyColumns: [0])
                depths[try reader.text(0), default: 0] += Int(try reader.int(1))
            }
        }
        return depths
    }

    func probeWrite() throws {
        switch dialect {
        // Setting the schema version it already has rewrites page 1: a write like any other, refused on
        // a full disk ("database or disk is full").
        case .sqlite: try execute("PRAGMA user_version = \(SQLSchema.version)")
        // A transaction id makes the commit write a WAL record.
        case .postgres: _ = try query("SELECT txid_current()")
        }
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
}
