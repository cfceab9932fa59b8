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

    func claimWebhooks(limit: Int, perEndpoint: Int, owner: String, until: Date, now: Date) throws
        -> [WebhookDelivery]
    {
        let open = data.webhooks.values.filter { $0.delivery.failedAt == nil }
        // The first open row of each (app, endpoint, activity) is the only one that may go.
        var heads: [String: Int64] = [:]
        // Rows leased and not yet run out, by endpoint.
        var leased: [String: Int] = [:]
        for row in open {
            let key = [row.delivery.app, row.delivery.endpoint, row.delivery.activityId].joined(separator: "\u{1F}")
            heads[key] = min(heads[key] ?? .max, row.delivery.id)
            if row.claimedBy != nil, row.delivery.availableAt > now {
                leased[Self.endpoint(row.delivery), default: 0] += 1
            }
        }
        let due = heads.values.compactMap { data.webhooks[$0] }.filter { $0.delivery.availableAt <= now }
        // Each endpoint's due rows oldest first; its turn-th may go while turn + leased stays within its cap.
        let byEndpoint = Dictionary(grouping: due) { Self.endpoint($0.delivery) }
        var ranked: [(turn: Int, row: MemoryStore.QueuedWebhook)] = []
        for (endpoint, rows) in byEndpoint {
            let room = perEndpoint - leased[endpoint, default: 0]
            let oldest = rows.sorted {
                ($0.delivery.availableAt, $0.delivery.id) < ($1.delivery.availableAt, $1.delivery.id)
            }
            ranked += oldest.prefix(max(0, room)).enumerated().map { (turn: $0.offset, row: $0.element) }
        }
        let chosen = ranked.sorted {
            ($0.turn, $0.row.delivery.availableAt, $0.row.delivery.id)
                < ($1.turn, $1.row.delivery.availableAt, $1.row.delivery.id)
        }.prefix(max(0, limit))
        var claimed: [WebhookDelivery] = []
        for (_, var row) in chosen {
            row.claimedBy = owner
            row.delivery.availableAt = until
            row.delivery.attempts += 1
            setWebhook(row.delivery.id, row)
            claimed.append(row.delivery)
        }
        return claimed.sorted { $0.id < $1.id }
    }

    private static func endpoint(_ delivery: WebhookDelivery) -> String { delivery.app + "\u{1F}" + delivery.endpoint }

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
