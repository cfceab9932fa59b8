import Foundation

/// The webhook queue in SQL, shared by SQLite and PostgreSQL.
extension SQLTransaction {
    static let webhookColumns = [
        "id", "app", "endpoint", "activity_id", "delivery_id", "event", "body", "created_at", "available_at",
        "attempts", "last_error", "failed_at",
    ]
    static let webhookColumnList = webhookColumns.joined(separator: ", ")

    static func webhook(_ row: SQLRow) throws(StoreError) -> WebhookDelivery {
        let r = RowReader(row: row, table: "webhook_deliveries", columns: webhookColumns, keyColumns: [0])
        return WebhookDelivery(
            id: try r.int(0), app: try r.text(1), endpoint: try r.text(2), activityId: try r.text(3),
            deliveryId: try r.text(4), event: try r.text(5), body: try r.text(6), createdAt: try r.date(7),
            availableAt: try r.date(8), attempts: Int(try r.int(9)), lastError: r.optionalText(10),
            failedAt: try r.optionalDate(11))
    }

    @discardableResult
    private func run(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] {
        try connection.query(connection.dialect.render(sql), parameters)
    }

    func enqueueWebhooks(_ deliveries: [WebhookDelivery]) throws {
        for delivery in deliveries {
            try run(
                """
                INSERT INTO webhook_deliveries (app, endpoint, activity_id, delivery_id, event, body, created_at, available_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(delivery.app), .text(delivery.endpoint), .text(delivery.activityId),
                    .text(delivery.deliveryId), .text(delivery.event), .text(delivery.body),
                    SQLValue(delivery.createdAt), SQLValue(delivery.availableAt),
                ])
        }
    }

    func claimWebhooks(limit: Int, perEndpoint: Int, owner: String, until: Date, now: Date) throws
        -> [WebhookDelivery]
    {
        // `due`: the first row of each (app, endpoint, activity) not given up, when it is due: an earlier
        // one holds it back whether it waits for its backoff or is in flight. `turn` ranks an endpoint's due
        // rows oldest first, `leased` counts its rows in flight; claims go by turn, so every endpoint gets
        // its first before any gets its second. The ranking reads without locks (PostgreSQL refuses FOR
        // UPDATE beside a window function); the outer select locks the rows chosen, skips those another
        // claim holds, and re-checks `available_at` on the latest version, so no row is claimed twice.
        let rows = try run(
            """
            UPDATE webhook_deliveries SET claimed_by = ?, claimed_until = ?, available_at = ?, attempts = attempts + 1
            WHERE id IN (
              SELECT id FROM webhook_deliveries WHERE failed_at IS NULL AND available_at <= ? AND id IN (
                SELECT id FROM (
                  SELECT w.id, w.available_at,
                    ROW_NUMBER() OVER (PARTITION BY w.app, w.endpoint ORDER BY w.available_at, w.id) AS turn,
                    (SELECT COUNT(*) FROM webhook_deliveries l WHERE l.app = w.app AND l.endpoint = w.endpoint
                      AND l.claimed_by IS NOT NULL AND l.failed_at IS NULL AND l.available_at > ?) AS leased
                  FROM webhook_deliveries w WHERE w.failed_at IS NULL AND w.available_at <= ?
                    AND NOT EXISTS (
                      SELECT 1 FROM webhook_deliveries e WHERE e.app = w.app AND e.endpoint = w.endpoint
                        AND e.activity_id = w.activity_id AND e.id < w.id AND e.failed_at IS NULL)
                ) due
                WHERE turn + leased <= ?
                ORDER BY turn, available_at, id LIMIT ?)\(connection.dialect.claimLock))
            RETURNING \(Self.webhookColumnList)
            """,
            [
                .text(owner), SQLValue(until), SQLValue(until), SQLValue(now), SQLValue(now), SQLValue(now),
                .int(Int64(perEndpoint)), .int(Int64(limit)),
            ])
        var deliveries: [WebhookDelivery] = []
        for row in rows {
            do {
                deliveries.append(try Self.webhook(row))
            } catch {
                // One unreadable row must not stop the queue: it is given up with the error, where an
                // operator sees it, and no longer holds back its activity's later deliveries.
                let failure: StoreError = error
                guard failure.code == .corruptRow, let id = row.int(0) else { throw failure }
                try run(
                    "UPDATE webhook_deliveries SET failed_at = ?, last_error = ?, claimed_by = NULL WHERE id = ?",
                    [SQLValue(now), .text(failure.message), .int(id)])
            }
        }
        return deliveries.sorted { $0.id < $1.id }
    }

    func completeWebhook(id: Int64, owner: String) throws {
        try run("DELETE FROM webhook_deliveries WHERE id = ? AND claimed_by = ?", [.int(id), .text(owner)])
    }

    func rescheduleWebhook(id: Int64, owner: String, availableAt: Date, error: String) throws {
        try run(
            """
            UPDATE webhook_deliveries SET available_at = ?, last_error = ?, claimed_by = NULL, claimed_until = NULL
            WHERE id = ? AND claimed_by = ?
            """, [SQLValue(availableAt), .text(error), .int(id), .text(owner)])
    }

    func failWebhook(id: Int64, owner: String, error: String, at: Date) throws {
        try run(
            """
            UPDATE webhook_deliveries SET failed_at = ?, last_error = ?, claimed_by = NULL, claimed_until = NULL
            WHERE id = ? AND claimed_by = ?
            """, [SQLValue(at), .text(error), .int(id), .text(owner)])
    }

    func webhookDeliveries(limit: Int) throws -> [WebhookDelivery] {
        try run(
            "SELECT \(Self.webhookColumnList) FROM webhook_deliveries ORDER BY id LIMIT ?", [.int(Int64(limit))]
        ).map(Self.webhook)
    }

    func webhookStats() throws -> WebhookQueueStats {
        let row = try run(
            """
            SELECT COUNT(*) - COUNT(failed_at), COUNT(failed_at) FROM webhook_deliveries
            """, []
        ).first
        return WebhookQueueStats(pending: Int(row?.int(0) ?? 0), failed: Int(row?.int(1) ?? 0))
    }
}
