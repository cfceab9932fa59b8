import Foundation

/// The webhook queue in memory, with the SQL engines' semantics.
extension MemoryTransaction {
    func enqueueWebhooks(_ deliveries: [WebhookDelivery]) throws {
        for var delivery in deliveries {
            delivery.id = data.nextWebhookID
            delivery.attempts = 0
            delivery.lastError = nil
            delivery.failedAt = nil
            setNextWebhookID(delivery.id + 1)
            setWebhook(delivery.id, MemoryStore.QueuedWebhook(delivery: delivery))
        }
    }

    func claimWebhooks(limit: Int, owner: String, until: Date, now: Date) throws -> [WebhookDelivery] {
        let open = data.webhooks.values.filter { $0.delivery.failedAt == nil }
        // The first open row of each (app, endpoint, activity) is the only one that may go.
        var heads: [String: Int64] = [:]
        for row in open {
            let key = [row.delivery.app, row.delivery.endpoint, row.delivery.activityId].joined(separator: "\u{1F}")
            heads[key] = min(heads[key] ?? .max, row.delivery.id)
        }
        let due = heads.values.compactMap { data.webhooks[$0] }.filter { $0.delivery.availableAt <= now }
            .sorted { ($0.delivery.availableAt, $0.delivery.id) < ($1.delivery.availableAt, $1.delivery.id) }
            .prefix(max(0, limit))
        var claimed: [WebhookDelivery] = []
        for var row in due {
            row.claimedBy = owner
            row.delivery.availableAt = until
            row.delivery.attempts += 1
            setWebhook(row.delivery.id, row)
            claimed.append(row.delivery)
        }
        return claimed.sorted { $0.id < $1.id }
    }

    /// The row `owner` still holds.
    private func held(_ id: Int64, by owner: String) -> MemoryStore.QueuedWebhook? {
        guard let row = data.webhooks[id], row.claimedBy == owner else { return nil }
        return row
    }

    func completeWebhook(id: Int64, owner: String) throws {
        guard held(id, by: owner) != nil else { return }
        setWebhook(id, nil)
    }

    func rescheduleWebhook(id: Int64, owner: String, availableAt: Date, error: String) throws {
        guard var row = held(id, by: owner) else { return }
        row.claimedBy = nil
        row.delivery.availableAt = availableAt
        row.delivery.lastError = error
        setWebhook(id, row)
    }

    func failWebhook(id: Int64, owner: String, error: String, at: Date) throws {
        guard var row = held(id, by: owner) else { return }
        row.claimedBy = nil
        row.delivery.failedAt = at
        row.delivery.lastError = error
        setWebhook(id, row)
    }

    func webhookDeliveries(limit: Int) throws -> [WebhookDelivery] {
        Array(data.webhooks.values.map(\.delivery).sorted { $0.id < $1.id }.prefix(max(0, limit)))
    }

    func webhookStats() throws -> WebhookQueueStats {
        let failed = data.webhooks.values.filter { $0.delivery.failedAt != nil }.count
        return WebhookQueueStats(pending: data.webhooks.count - failed, failed: failed)
    }
}
