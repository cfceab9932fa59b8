import DropTrackContract
import DropTrackCore
import Foundation

/// The timeline, and the retention that prunes it and old invalidated tokens, in SQL.
extension SQLTransaction {
    func appendTimeline(_ entries: [TimelineEntry]) throws {
        // Many rows per statement, in order (ids follow the order of the VALUES list).
        for run in Self.runs(entries.count) {
            var parameters: [SQLValue] = []
            parameters.reserveCapacity(run.count * 14)
            for entry in entries[run] {
                parameters += [
                    .text(entry.app), .text(entry.activityId), SQLValue(entry.at), .text(entry.destination.stored),
                    .text(entry.provider.rawValue), .text(entry.event), .int(entry.version), .int(Int64(entry.status)),
                    .text(entry.reason), .text(entry.remedy.rawValue), .double(entry.latencyMs),
                    .int(Int64(entry.priority)),
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
        for (key, count) in TimelineEntry.startOutcomeCounts(entries).sorted(by: { "\($0.key)" < "\($1.key)" }) {
            try execute(
                """
                INSERT INTO start_outcomes (app, activity_id, outcome, total) VALUES (?, ?, ?, ?)
                  ON CONFLICT (app, activity_id, outcome) DO UPDATE SET total = start_outcomes.total + excluded.total
                """, [.text(key.app), .text(key.activityId), .text(key.outcome), .int(Int64(count))])
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

    func timeline(app: String, activityId: String, destinations: [TimelineDestination], limit: Int) throws
        -> [TimelineEntry]
    {
        // Each destination's newest entries through the (app, activity_id, destination, id) index, so one
        // member's read never walks the other members' entries.
        var found: [(id: Int64, entry: TimelineEntry)] = []
        for destination in Set(destinations.map(\.stored)).sorted() {
            found += try query(
                """
                SELECT \(Self.timelineColumnList) FROM timeline WHERE app = ? AND activity_id = ? AND destination = ?
                  ORDER BY id DESC LIMIT ?
                """, [.text(app), .text(activityId), .text(destination), .int(Int64(limit))]
            ).map { row throws(StoreError) in
                let id = try RowReader(row: row, table: "timeline", columns: Self.timelineColumns, keyColumns: [14])
                    .int(14)
                return (id, try Self.timelineEntry(row))
            }
        }
        return found.sorted { $0.id < $1.id }.suffix(limit).map(\.entry)
    }

    func timeline(app: String, activityId: String, limit: Int) throws -> [TimelineEntry] {
        try query(
            """
            SELECT \(Self.timelineColumnList) FROM timeline WHERE app = ? AND activity_id = ? ORDER BY id DESC LIMIT ?
            """, [.text(app), .text(activityId), .int(Int64(limit))]
        ).reversed().map(Self.timelineEntry)
    }
}
