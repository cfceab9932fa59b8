import DropTrackContract
import DropTrackCore
import DropTrackModel
import Foundation

/// The outbox in memory, with the SQL engines' semantics: rows, claims (leases), outcomes and dead letters.
extension MemoryTransaction {
    func enqueue(
        app: String, activityId: String, destinations: [OutboxDestination], version: Int64, availableAt: Date,
        now: Date
    ) throws {
        for destination in destinations {
            // The stored form, as the SQL engines' unique key has it.
            let key = app + "\u{1F}" + activityId + "\u{1F}" + destination.stored
            if let id = data.outboxIndex[key], var entry = data.outbox[id] {
                entry.requestedVersion = max(entry.requestedVersion, version)
                if entry.claimedBy == nil { entry.availableAt = min(entry.availableAt, availableAt) }
                setOutbox(id, entry)
            } else {
                let id = data.nextOutboxID
                data.nextOutboxID += 1
                setOutbox(
                    id,
                    OutboxEntry(
                        id: id, app: app, activityId: activityId, destination: destination,
                        requestedVersion: version,
                        availableAt: availableAt, firstQueuedAt: now))
                setOutboxIndex(key, id)
            }
        }
    }

    func enqueueFailedSend(
        app: String, activityId: String, destination: OutboxDestination, version: Int64, reachedProvider: Bool,
        error: String, availableAt: Date, holder: String?, now: Date
    ) throws -> OutboxEntry? {
        let key = app + "\u{1F}" + activityId + "\u{1F}" + destination.stored
        if let id = data.outboxIndex[key], var entry = data.outbox[id] {
            entry.requestedVersion = max(entry.requestedVersion, version)
            setOutbox(id, entry)
            return nil
        }
        let id = data.nextOutboxID
        data.nextOutboxID += 1
        let entry = OutboxEntry(
            id: id, app: app, activityId: activityId, destination: destination, requestedVersion: version,
            availableAt: availableAt, firstQueuedAt: now, attempts: reachedProvider ? 1 : 0, claimedBy: holder,
            claimedUntil: holder == nil ? nil : availableAt,
            lastError: reachedProvider ? error : SQLTransaction.unsentMark + error)
        setOutbox(id, entry)
        setOutboxIndex(key, id)
        return entry
    }

    func claim(app: String, limit: Int, owner: String, until: Date, now: Date) throws -> [OutboxEntry] {
        let due = data.outbox.values.filter { $0.app == app && $0.availableAt <= now }
            .sorted { ($0.availableAt, $0.id) < ($1.availableAt, $1.id) }.prefix(limit)
        var claimed: [OutboxEntry] = []
        for var entry in due {
            entry.inDoubt = entry.claimedBy != nil
            entry.claimedBy = owner
            entry.claimedUntil = until
            entry.availableAt = until
            entry.attempts += 1
            setOutbox(entry.id, entry)
            claimed.append(entry)
        }
        return claimed
    }

    func appsWithDueWork(now: Date) throws -> [String] {
        Array(
            Set(
                data.outbox.values.filter { $0.availableAt <= now }.map(\.app)
                    + data.fanout.values.filter { $0.availableAt <= now }.map(\.app))
        )
        .sorted()
    }

    private func remove(_ id: Int64) {
        guard let entry = data.outbox[id] else { return }
        setOutbox(id, nil)
        setOutboxIndex(entry.app + "\u{1F}" + entry.activityId + "\u{1F}" + entry.destination.stored, nil)
    }

    func completeOutbox(ids: [Int64], sentVersion: Int64, owner: String, now: Date) throws {
        for id in ids {
            guard var entry = data.outbox[id], entry.claimedBy == owner else { continue }
            if entry.requestedVersion > sentVersion {
                entry.claimedBy = nil
                entry.claimedUntil = nil
                entry.availableAt = now
                entry.attempts = 0
                setOutbox(id, entry)
            } else {
                remove(id)
            }
        }
    }

    func rescheduleOutbox(id: Int64, owner: String, availableAt: Date, error: String) throws {
        guard var entry = data.outbox[id], entry.claimedBy == owner else { return }
        entry.claimedBy = nil
        entry.claimedUntil = nil
        entry.availableAt = availableAt
        entry.lastError = error
        setOutbox(id, entry)
    }

    func releaseUnsent(ids: [Int64], owner: String, availableAt: Date, error: String) throws {
        for id in ids {
            guard var entry = data.outbox[id], entry.claimedBy == owner else { continue }
            entry.claimedBy = nil
            entry.claimedUntil = nil
            entry.availableAt = availableAt
            entry.lastError = SQLTransaction.unsentMark + error
            entry.attempts = max(0, entry.attempts - 1)
            setOutbox(id, entry)
        }
    }

    func expediteUnsent(app: String, now: Date) throws -> Int {
        var count = 0
        for (id, entry) in data.outbox
        where entry.app == app && entry.claimedBy == nil && entry.availableAt > now
            && entry.lastError?.hasPrefix(SQLTransaction.unsentMark) == true
        {
            var entry = entry
            entry.availableAt = now
            setOutbox(id, entry)
            count += 1
        }
        return count
    }

    func deadLetterOutbox(id: Int64, owner: String, error: String) throws {
        guard var entry = data.outbox[id], entry.claimedBy == owner else { return }
        remove(id)
        entry.lastError = error
        journal.append { $0.deadLetters[id] = nil }
        data.deadLetters[id] = entry
    }

    func deleteOutbox(id: Int64, owner: String) throws {
        guard data.outbox[id]?.claimedBy == owner else { return }
        remove(id)
    }

    func pendingOutbox(app: String, activityId: String) throws -> Int {
        data.outbox.values.filter { $0.app == app && $0.activityId == activityId }.count
            + (try fanoutJobs(app: app, activityId: activityId)).count
    }

    func pendingOutbox(app: String, activityId: String, fingerprints: [Fingerprint]) throws -> Int {
        let wanted = Set(fingerprints.map(\.value))
        return data.outbox.values.filter {
            $0.app == app && $0.activityId == activityId && wanted.contains($0.destination.stored)
        }.count
    }

    func hasPendingOutbox(app: String, activityId: String) throws -> Bool {
        try !fanoutJobs(app: app, activityId: activityId).isEmpty
            || data.outbox.values.contains { $0.app == app && $0.activityId == activityId }
    }

    func outboxDepthByApp() throws -> [String: Int] {
        var depths: [String: Int] = [:]
        for app in data.outbox.values.map(\.app) + data.fanout.values.map(\.app) { depths[app, default: 0] += 1 }
        return depths
    }

    /// Memory always takes writes.
    func probeWrite() throws {}

    func outboxStats() throws -> OutboxStats {
        OutboxStats(
            depth: data.outbox.count + data.fanout.count,
            oldestQueuedAt: (data.outbox.values.map(\.firstQueuedAt) + data.fanout.values.map(\.firstQueuedAt)).min(),
            deadLetters: data.deadLetters.count)
    }
}
