import DropTrackCore
import DropTrackModel
import Foundation

/// Fan-out range jobs in memory, with the SQL engines' semantics.
extension MemoryTransaction {
    static func fanoutKey(_ app: String, _ activityId: String, _ range: Int) -> String {
        app + "\u{1F}" + activityId + "\u{1F}" + String(range)
    }

    func requestFanout(app: String, activityId: String, version: Int64, availableAt: Date, now: Date) throws {
        for range in 0..<FanoutJob.rangeCount {
            let key = Self.fanoutKey(app, activityId, range)
            guard var job = data.fanout[key] else {
                setFanout(
                    key,
                    FanoutJob(
                        app: app, activityId: activityId, range: range, requestedVersion: version,
                        passVersion: version, firstQueuedAt: now, availableAt: availableAt))
                continue
            }
            if job.claimedBy == nil && job.cursor == nil { job.passVersion = max(job.passVersion, version) }
            job.requestedVersion = max(job.requestedVersion, version)
            if job.claimedBy == nil { job.availableAt = min(job.availableAt, availableAt) }
            setFanout(key, job)
        }
    }

    func claimFanout(app: String, limit: Int, owner: String, until: Date, now: Date) throws -> [FanoutJob] {
        let due = data.fanout.values.filter { $0.app == app && $0.availableAt <= now }
            .sorted { ($0.availableAt, $0.activityId, $0.range) < ($1.availableAt, $1.activityId, $1.range) }
            .prefix(max(0, limit))
        var claimed: [FanoutJob] = []
        for var job in due {
            job.resumed = job.claimedBy != nil
            job.claimedBy = owner
            job.claimedUntil = until
            job.availableAt = until
            if job.cursor == nil { job.passVersion = job.requestedVersion }
            setFanout(Self.fanoutKey(job.app, job.activityId, job.range), job)
            claimed.append(job)
        }
        return claimed.sorted { ($0.activityId, $0.range) < ($1.activityId, $1.range) }
    }

    func fanoutTokens(app: String, activityId: String, range: Int, after cursor: Fingerprint?, limit: Int) throws
        -> [FanoutToken]
    {
        // A pass over every token per batch: the memory store is for tests and small set-ups. At a pass's
        // start every fingerprint sorts after the empty cursor, as in SQL.
        let after = cursor?.value ?? ""
        return data.tokens.values.filter {
            $0.app == app && $0.kind == .activity && $0.activityId == activityId && $0.isValid
                && $0.fingerprint.value > after && FanoutJob.contains(range, $0.fingerprint)
        }
        .sorted { $0.fingerprint < $1.fingerprint }.prefix(max(0, limit))
        .map { FanoutToken(fingerprint: $0.fingerprint, token: $0.token, environment: $0.environment) }
    }

    func validUpdateTokenCount(app: String, activityId: String) throws -> Int {
        data.tokens.values.count { $0.app == app && $0.kind == .activity && $0.activityId == activityId && $0.isValid }
    }

    func advanceFanout(
        app: String, activityId: String, range: Int, cursor: Fingerprint, summary: String?, owner: String,
        availableAt: Date
    ) throws -> Bool {
        let key = Self.fanoutKey(app, activityId, range)
        guard var job = data.fanout[key], job.claimedBy == owner else { return false }
        job.cursor = cursor
        job.summary = summary
        job.claimedBy = nil
        job.claimedUntil = nil
        job.availableAt = availableAt
        setFanout(key, job)
        return true
    }

    func finishFanoutPass(app: String, activityId: String, range: Int, sentVersion: Int64, owner: String, now: Date)
        throws -> FanoutPassEnd
    {
        let key = Self.fanoutKey(app, activityId, range)
        guard var job = data.fanout[key], job.claimedBy == owner else { return .lost }
        guard job.requestedVersion > max(job.passVersion, sentVersion) else {
            setFanout(key, nil)
            return .removed
        }
        job.cursor = nil
        job.summary = nil
        job.passVersion = job.requestedVersion
        job.claimedBy = nil
        job.claimedUntil = nil
        job.availableAt = now
        setFanout(key, job)
        return .restarted(version: job.requestedVersion)
    }

    func deleteFanout(app: String, activityId: String, range: Int, owner: String) throws {
        let key = Self.fanoutKey(app, activityId, range)
        guard data.fanout[key]?.claimedBy == owner else { return }
        setFanout(key, nil)
    }

    func fanoutJobs(app: String, activityId: String) throws -> [FanoutJob] {
        (0..<FanoutJob.rangeCount).compactMap { data.fanout[Self.fanoutKey(app, activityId, $0)] }
    }
}
