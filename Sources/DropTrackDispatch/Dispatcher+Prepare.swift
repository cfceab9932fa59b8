import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

/// Turning claimed outbox rows into sends of the newest version.
extension Dispatcher {
    enum Prepared: Sendable {
        case apns(Work, APNsPush)
        case fcm(Work, FCMMessage)

        var work: Work {
            switch self {
            case .apns(let work, _), .fcm(let work, _): work
            }
        }
    }

    /// Claims rows of one app and turns each into a send of the newest version, skipping (and
    /// clearing) rows whose token is dead or whose activity is over.
    func prepare(app appID: String, limit: Int, now: Date) -> [Prepared] {
        guard let app = configuration.apps.first(where: { $0.id == appID }) else { return [] }
        let builder = PayloadBuilder(
            contracts: ContractBook(schemas: app.schemas ?? [:]), fcmTTLSeconds: configuration.fcmTTLSeconds)
        // What the committed run of the transaction skipped (a store may run it more than once, and a run
        // that rolls back counts nothing): warned about and counted only after the commit.
        var committedSkips: [TimelineEntry] = []
        do {
            let prepared = try store.transaction { tx -> [Prepared] in
                let rows = try tx.claim(
                    app: appID, limit: limit, owner: owner, until: now.addingTimeInterval(configuration.leaseSeconds),
                    now: now)
                guard !rows.isEmpty else { return [] }
                let fingerprints = Array(Set(rows.compactMap(\.destination.tokenFingerprint)))
                let tokens = Dictionary(
                    try tx.tokens(app: appID, fingerprints: fingerprints).map { ($0.fingerprint, $0) },
                    uniquingKeysWith: { first, _ in first })
                var activities: [String: ActivityRecord?] = [:]
                // One payload per activity version and kind, however many tokens it goes to.
                var apnsPayloads: [String: (payload: [UInt8], priority: Int)] = [:]
                var dataMaps: [String: [String: String]] = [:]
                var prepared: [Prepared] = []
                var skipped: [TimelineEntry] = []
                for row in rows {
                    if activities[row.activityId] == nil {
                        activities[row.activityId] = try tx.activity(app: appID, id: row.activityId)
                    }
                    let activity = activities[row.activityId] ?? nil
                    func skip(
                        _ reason: String, _ note: String, event: String? = nil, provider: TimelineProvider = .server,
                        remedy: TimelineRemedy = .none
                    ) throws {
                        try tx.deleteOutbox(id: row.id, owner: owner)
                        skipped.append(
                            TimelineEntry(
                                app: appID, activityId: row.activityId, at: now,
                                destination: TimelineDestination(row.destination),
                                provider: provider, event: event ?? activity?.event.rawValue ?? "-",
                                version: activity?.version ?? 0,
                                status: 0, reason: reason, remedy: remedy, latencyMs: 0,
                                priority: activity?.priority ?? 0,
                                attempt: row.attempts, note: note))
                    }
                    guard let activity else {
                        try tx.deleteOutbox(id: row.id, owner: owner)
                        continue
                    }
                    let fingerprint: Fingerprint
                    switch row.destination {
                    case .token(let tokenFingerprint): fingerprint = tokenFingerprint
                    case .channel(let channel):
                        guard activity.channelId == channel, activity.state != .dismissed else {
                            try skip("channel_replaced", "not sent: the activity no longer uses this channel")
                            continue
                        }
                        guard let bundle = app.bundleId else {
                            try deadLetter(tx, row, error: "app \(appID) has no bundleId for APNs", now: now)
                            continue
                        }
                        let key = activity.id + "|update"
                        let built = try apnsPayloads[key] ?? builder.apnsPayload(activity: activity, start: false)
                        apnsPayloads[key] = built
                        // No-storage channels take apns-expiration 0 only; others what the start asked for.
                        let asked = activity.mapperState?["broadcastExpiration"]?.numberValue.map {
                            Int64(saturating: $0)
                        }
                        let expiration: Int64? =
                            activity.channelPolicy == MessageStoragePolicy.noMessageStored.rawValue ? 0 : asked
                        let push = APNsPush(
                            channelID: channel, bundleID: bundle, payload: built.payload, priority: built.priority,
                            expiration: expiration)
                        let work = Work(
                            entry: row, version: activity.version, event: activity.event.rawValue,
                            priority: built.priority, provider: .apns, activityUpdatedAt: activity.updatedAt)
                        prepared.append(.apns(work, push))
                        continue
                    }
                    guard let token = tokens[fingerprint], token.isValid else {
                        try skip(
                            "token_invalid",
                            "not sent: the token was invalidated (\(tokens[fingerprint]?.invalidReason?.stored ?? "gone"))"
                        )
                        continue
                    }
                    if activity.state == .dismissed {
                        try skip("activity_dismissed", "not sent: the activity was dismissed")
                        continue
                    }
                    if token.kind == .pushToStart && row.inDoubt {
                        // Updates are resent after a crash (the timestamp makes a duplicate harmless), but
                        // a second push-to-start would put a second Live Activity on the device.
                        // A start, whatever the activity's event is by now; remedy in_doubt so that it is
                        // warned about and counted (once, after the commit) like a start lost in flight.
                        try skip(
                            "outcome_unknown",
                            "not sent again: the worker holding this start stopped before its outcome was written, so it may have reached the device",
                            event: "start", provider: .apns, remedy: .inDoubt)
                        try webhooks.record(
                            tx, app: appID, activityId: row.activityId, event: .startInDoubt,
                            data: [
                                "destination": .string(row.destination.stored), "reason": .string("outcome_unknown"),
                                "version": .number(Double(activity.version)),
                            ], at: now)
                        continue
                    }
                    if token.kind == .pushToStart && activity.state == .ended {
                        try skip("activity_ended", "not sent: the activity ended before its start reached this device")
                        continue
                    }
                    let provider: TimelineProvider = token.kind == .fcm ? .fcm : .apns
                    let event = token.kind == .pushToStart ? "start" : activity.event.rawValue
                    let work = Work(
                        entry: row, version: activity.version, event: event,
                        priority: token.kind == .pushToStart ? 10 : activity.priority, provider: provider,
                        activityUpdatedAt: activity.updatedAt,
                        startsActivity: token.kind == .pushToStart || (token.kind == .fcm && activity.event == .start))
                    if token.kind == .fcm {
                        let data = dataMaps[activity.id] ?? builder.dataMap(activity)
                        dataMaps[activity.id] = data
                        prepared.append(.fcm(work, builder.fcmMessage(data: data, token: token)))
                    } else {
                        guard let bundle = app.bundleId else {
                            try deadLetter(tx, row, error: "app \(appID) has no bundleId for APNs", now: now)
                            continue
                        }
                        do {
                            let start = token.kind == .pushToStart
                            let key = activity.id + (start ? "|start" : "|update")
                            let built = try apnsPayloads[key] ?? builder.apnsPayload(activity: activity, start: start)
                            apnsPayloads[key] = built
                            prepared.append(
                                .apns(
                                    work,
                                    builder.apnsPush(
                                        payload: built.payload, priority: built.priority, token: token,
                                        bundleId: bundle)))
                        } catch {
                            try deadLetter(tx, row, error: "cannot build the payload: \(error)", now: now)
                        }
                    }
                }
                if !skipped.isEmpty { try tx.appendTimeline(skipped) }
                committedSkips = skipped
                return try admit(prepared, app: appID, now: now, tx)
            }
            reportCommitted(committedSkips)
            return prepared
        } catch {
            logger.error("dispatcher.claim_failed", ["app": appID, "error": "\(error)"])
            metrics.increment("droptrack_store_errors_total", ["operation": "claim"])
            writeHealth.writeFailed(operation: "claim", error: error, at: now)
            return []
        }
    }
}
