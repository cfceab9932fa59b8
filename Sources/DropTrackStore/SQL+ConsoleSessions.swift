import Foundation

/// Console sessions in SQL, shared by SQLite and PostgreSQL.
extension SQLTransaction {
    static let consoleSessionColumns = [
        "id_digest", "app", "key_fingerprint", "csrf_token", "created_at", "last_seen_at",
    ]

    func saveConsoleSession(_ session: ConsoleSessionRecord) throws {
        let values: [SQLValue] = [
            .text(session.idDigest), .text(session.app), .text(session.keyFingerprint), .text(session.csrfToken),
            SQLValue(session.createdAt), SQLValue(session.lastSeenAt),
        ]
        try execute(
            """
            INSERT INTO console_sessions (\(Self.consoleSessionColumns.joined(separator: ", ")))
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (id_digest) DO UPDATE SET last_seen_at = excluded.last_seen_at
            """, values)
    }

    func consoleSession(idDigest: String) throws -> ConsoleSessionRecord? {
        try query(
            "SELECT \(Self.consoleSessionColumns.joined(separator: ", ")) FROM console_sessions WHERE id_digest = ?",
            [.text(idDigest)]
        ).first.map { row throws(StoreError) in
            let r = RowReader(
                row: row, table: "console_sessions", columns: Self.consoleSessionColumns, keyColumns: [0])
            return ConsoleSessionRecord(
                idDigest: try r.text(0), app: try r.text(1), keyFingerprint: try r.text(2), csrfToken: try r.text(3),
                createdAt: try r.date(4), lastSeenAt: try r.date(5))
        }
    }

    func deleteConsoleSession(idDigest: String) throws {
        try execute("DELETE FROM console_sessions WHERE id_digest = ?", [.text(idDigest)])
    }

    func trimConsoleSessions(createdBefore: Date, lastSeenBefore: Date, keeping: Int) throws {
        try execute(
            "DELETE FROM console_sessions WHERE created_at < ? OR last_seen_at < ?",
            [SQLValue(createdBefore), SQLValue(lastSeenBefore)])
        try execute(
            """
            DELETE FROM console_sessions WHERE id_digest NOT IN (
              SELECT id_digest FROM console_sessions ORDER BY last_seen_at DESC, id_digest LIMIT ?)
            """, [.int(Int64(max(0, keeping)))])
    }

    func consoleSessionCount() throws -> Int {
        Int(try query("SELECT COUNT(*) FROM console_sessions", []).first?.int(0) ?? 0)
    }
}
