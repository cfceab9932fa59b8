import Foundation

/// Console sessions and device-credential revocations in SQL, shared by SQLite and PostgreSQL.
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

    func trimConsoleSessions(app: String, createdBefore: Date, lastSeenBefore: Date, keeping: Int) throws {
        try execute(
            "DELETE FROM console_sessions WHERE created_at < ? OR last_seen_at < ?",
            [SQLValue(createdBefore), SQLValue(lastSeenBefore)])
        try execute(
            """
            DELETE FROM console_sessions WHERE app = ? AND id_digest NOT IN (
              SELECT id_digest FROM console_sessions WHERE app = ? ORDER BY last_seen_at DESC, id_digest LIMIT ?)
            """, [.text(app), .text(app), .int(Int64(max(0, keeping)))])
    }

    func consoleSessionCount() throws -> Int {
        Int(try query("SELECT COUNT(*) FROM console_sessions", []).first?.int(0) ?? 0)
    }
}

extension SQLTransaction {
    func revokeDeviceCredentials(app: String, userId: String, notBefore: Int64) throws {
        try execute(
            """
            INSERT INTO device_credential_revocations (app, user_id, not_before) VALUES (?, ?, ?)
            ON CONFLICT (app, user_id) DO UPDATE SET not_before = CASE
              WHEN excluded.not_before > device_credential_revocations.not_before THEN excluded.not_before
              ELSE device_credential_revocations.not_before END
            """, [.text(app), .text(userId), .int(notBefore)])
    }

    func deviceCredentialsNotBefore(app: String, userId: String) throws -> Int64? {
        try query(
            "SELECT not_before FROM device_credential_revocations WHERE app = ? AND user_id = ?",
            [.text(app), .text(userId)]
        ).first?.int(0)
    }
}
