import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

// Starting an activity: the checks, the idempotent insert and the first send.
extension ActivityRegistry {
    /// Starts an activity: push-to-start to the user's iPhones for the attributes type, and a start
    /// to their Android devices; for an audience, to every member's. The same idempotency key gives
    /// the same answer and no second send.
    public func startActivity(app appID: String, _ start: StartActivity) throws(Refusal) -> (
        started: ActivityStarted, created: Bool
    ) {
        let (stored, created) = try startKeepingAnswer(app: appID, start)
        return (ActivityStarted(stored: stored), created)
    }

    /// Starts an activity and answers with the copy of the answer kept for replays.
    func startKeepingAnswer(app appID: String, _ start: StartActivity) throws(Refusal) -> (
        response: JSONValue, created: Bool
    ) {
        let app = try app(appID)
        let contracts = contracts(app)
        let key = start.idempotencyKey
        // A malformed retry is refused (`invalid`) even when its key is known. A well-formed one gets the first
        // answer even if it would now fail a check that depends on time or configuration (a staleDate that
        // has since passed), since the start it asks for has already happened.
        var built: ActivityRecord
        do {
            built = try buildStart(start, app: app, contracts: contracts)
        } catch {
            if case .invalid = error { throw error }
            guard let previous = try transact({ try $0.activity(app: appID, idempotencyKey: key) }),
                let response = previous.startResponse
            else { throw error }
            return (response, false)
        }
        if let previous = try transact({ try $0.activity(app: appID, idempotencyKey: key) }),
            let response = previous.startResponse
        {
            return (response, false)
        }
        let created = try openChannel(&built, app: app)
        let activityId = built.id
        let type = built.attributesType
        let now = built.createdAt
        do {
            defer { if created != nil { closeChannelUnlessStored(created!, app: appID, activityId: activityId) } }
            return try store.transaction { tx in
                if let raced = try tx.activity(app: appID, idempotencyKey: key), let response = raced.startResponse {
                    return (response, false)
                }
                if let existing = try tx.activity(app: appID, id: activityId) {
                    // The same start from another replica may commit between the two reads above.
                    if existing.idempotencyKey == key, let response = existing.startResponse {
                        return (response, false)
                    }
                    throw Refusal.conflict(
                        code: .activityExists,
                        message: "activity '\(activityId)' exists with another idempotency key",
                        field: "activityId")
                }
                var activity = built
                activity.timestamp = try Self.pushTimestamp(tx, now: now)
                let (destinations, members) = try startDestinations(
                    start, type: type, contracts: contracts, app: appID, tx: tx)
                let response = ActivityStarted(activity, destinations: destinations, members: members?.count).stored
                activity.startResponse = response
                try tx.insertActivity(activity)
                if let members { try tx.addMembers(app: appID, activityId: activityId, userIds: members) }
                try tx.enqueue(
                    app: appID, activityId: activityId, fingerprints: destinations.map(\.fingerprint), version: 1,
                    availableAt: activity.startAt ?? now, now: now)
                return (response, true)
            }
        } catch let error as Refusal {
            throw error
        } catch let error as StoreError where error.code == .conflict {
            // A concurrent request with the same key won the race: answer as it did.
            if let winner = try transact({ try $0.activity(app: appID, idempotencyKey: key) }),
                let response = winner.startResponse
            {
                return (response, false)
            }
            throw Refusal.conflict(
                code: .activityExists, message: "activity '\(activityId)' already exists", field: "activityId")
        } catch {
            throw Refusal.unavailable(
                code: .storeUnavailable, message: "the store failed: \(error); retry shortly")
        }
    }

    /// Checks a start into the activity it would create: what the request states (400s), then what
    /// depends on the app's contracts and the clock (422s).
    func buildStart(_ start: StartActivity, app: AppConfiguration, contracts: ContractBook)
        throws(Refusal) -> ActivityRecord
    {
        let appID = app.id
        let (type, widget) = try contracts.expoStart(type: start.attributesType, widget: start.widget)
        switch (start.userId.isEmpty, start.audience) {
        case (true, nil):
            throw Refusal.missing("userId", "the user to start for, or an 'audience' for a shared activity")
        case (false, .some):
            throw Refusal.invalid("audience", "give either 'userId' or 'audience', not both")
        default: break
        }
        if let event = start.event, !contracts.eventTypes.contains(event.type) {
            throw Refusal.unprocessable(
                code: .unknownEventType,
                message:
                    "unknown event type '\(event.type)'; the types are \(contracts.eventTypes.joined(separator: ", "))",
                field: "event.type")
        }
        try Self.checkAlert(start.alert)
        let startAt = start.startAt.map { Date(timeIntervalSince1970: Double($0)) }
        let endAt = start.endAt.map { Date(timeIntervalSince1970: Double($0)) }
        let broadcast = start.broadcast
        if let expiration = broadcast?.expiration, expiration != 0, broadcast?.storagePolicy == .noMessageStored {
            throw Refusal.unprocessable(
                message:
                    "a no-storage channel takes apns-expiration 0 only (APNs answers BadExpirationDate); drop 'expiration' or use \"most-recent\"",
                field: "broadcast.expiration")
        }

        let now = clock.now()
        try contracts.requireKnown(type, field: "attributesType")
        let attributes = try contracts.attributes(
            start.attributes, type: type, activityId: start.activityId, field: "attributes")
        try requireFuture(start.staleDate, "staleDate", now: now)
        try requireFuture(start.endAt, "endAt", now: now)
        var schedule = try start.schedule.map { entries throws(Refusal) in
            try scheduleStates(entries, type: type, contracts: contracts)
        }
        var state: JSONValue
        var mapperState: JSONValue? = nil
        if let givenState = start.contentState {
            state = try contracts.contentState(givenState, type: type, field: "contentState")
        } else if let event = start.event, let mapper = try contracts.declarativeMapper(type) {
            guard schedule == nil else {
                throw Refusal.invalid(
                    "schedule", "\(type) computes its schedule from its record: give 'event' or 'schedule', not both")
            }
            let applied: DeclarativeMapper.Applied
            do {
                applied = try mapper.apply(event.type, data: event.data, record: nil, now: now)
            } catch {
                throw error.nested(under: "event")
            }
            (state, schedule) = try declarativeState(mapper, record: applied.record, contracts: contracts, now: now)
            mapperState = .object(["record": applied.record])
        } else if let event = start.event {
            guard type == DeliveryAttributes.typeName else {
                throw Refusal.unprocessable(
                    message:
                        "events are for DeliveryAttributes and types with a mapper; give 'contentState' for \(type), or declare schemas.\(type).mapper",
                    field: "event")
            }
            let mapped: MappedState
            do {
                mapped = try DeliveryMapper.apply(
                    type: event.type, data: event.data, current: .null, mapperState: nil, now: now)
            } catch {
                throw error.nested(under: "event")
            }
            state = mapped.contentState
            mapperState = mapped.mapperState
        } else {
            state = schedule?.arrayValue?.first?["contentState"] ?? .object([:])
        }
        if let schedule, let first = Self.currentEntry(schedule, at: now) { state = first }
        var memory = mapperState?.objectValue ?? [:]
        memory["startAlert"] = start.alert
        memory[Self.expoWidgetKey] = widget.map { .string($0) }
        if let expiration = broadcast?.expiration { memory["broadcastExpiration"] = .number(Double(expiration)) }
        if let audience = start.audience { memory[Self.audienceMemoryKey] = audience.summary }
        let nowUnix = Int64(now.timeIntervalSince1970.rounded(.down))
        let activity = ActivityRecord(
            app: appID, id: start.activityId, userId: start.userId, attributesType: type, attributes: attributes,
            contentState: state,
            state: startAt.map { $0 > now } == true ? .pending : .active, version: 1, timestamp: nowUnix, event: .start,
            priority: 10, alert: start.alert, staleDate: start.staleDate ?? defaultStale(now),
            relevanceScore: start.relevanceScore, idempotencyKey: start.idempotencyKey, priority10Times: [nowUnix],
            createdAt: now, updatedAt: now, startAt: startAt,
            endAt: endAt ?? now.addingTimeInterval(configuration.maxActiveSeconds), schedule: schedule,
            channelId: broadcast?.channelId, channelPolicy: broadcast.map { $0.storagePolicy.rawValue },
            mapperState: .object(memory))
        try checkSize(activity, app: app, contracts: contracts)
        return activity
    }

    /// An `alert`: `title` and `body` are text or a localized `{loc-key, loc-args}` object, and at
    /// least one is given (iOS shows nothing for an alert without either).
    static func checkAlert(_ alert: JSONValue) throws(Refusal) {
        let reader = try FieldReader(alert, prefix: "alert")
        try reader.refuseUnknown(["title", "body", "sound"])
        for key in ["title", "body"] {
            guard let value = reader.object[key] else { continue }
            guard value.stringValue != nil || value.objectValue != nil else {
                throw Refusal.invalid(
                    "alert.\(key)", "'alert.\(key)' is a string or a {\"loc-key\", \"loc-args\"} object")
            }
        }
        _ = try reader.string("sound", required: false)
        guard alert["title"] != nil || alert["body"] != nil else {
            throw Refusal.missing("alert.title", "a title or body for the banner")
        }
    }

    func defaultStale(_ now: Date) -> Int64? {
        configuration.defaultStaleSeconds > 0
            ? Int64(saturating: now.timeIntervalSince1970 + configuration.defaultStaleSeconds) : nil
    }

    func requireFuture(_ value: Int64?, _ key: String, now: Date) throws(Refusal) {
        if let value, Double(value) < now.timeIntervalSince1970 {
            throw Refusal.unprocessable(
                message: "'\(key)' is in the past; iOS would apply it at once", field: key)
        }
    }

    /// Refuses a version whose APNs payload would exceed 4096 bytes, before anything is stored.
    func checkSize(_ activity: ActivityRecord, app: AppConfiguration, contracts: ContractBook) throws(Refusal) {
        let builder = PayloadBuilder(contracts: contracts, fcmTTLSeconds: configuration.fcmTTLSeconds)
        let probe = TokenRecord(
            app: app.id, kind: activity.event == .start ? .pushToStart : .activity,
            token: DeviceToken(String(repeating: "0", count: 64)),
            fingerprint: Fingerprint(of: String(repeating: "0", count: 64)), userId: nil, deviceId: "",
            attributesType: nil,
            activityId: nil, environment: nil,
            createdAt: Date(), lastSeenAt: Date())
        if let push = try? builder.apnsPush(activity: activity, token: probe, bundleId: app.bundleId ?? "app"),
            push.payload.count > APNsLimits.devicePayloadBytes
        {
            throw Refusal.unprocessable(
                code: .payloadTooLarge,
                message:
                    "the APNs payload would be \(push.payload.count) bytes; the limit is 4096. Shorten the content-state or attributes",
                field: "contentState")
        }
        let map = builder.dataMap(activity)
        if FCMLimits.size(of: map) > FCMLimits.dataBytes {
            throw Refusal.unprocessable(
                code: .payloadTooLarge,
                message: "the FCM data map would be \(FCMLimits.size(of: map)) bytes; the limit is 4096",
                field: "contentState")
        }
    }
}
