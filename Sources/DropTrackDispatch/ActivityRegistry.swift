import DropTrackContract
import DropTrackCore
import DropTrackDoctor
import DropTrackStore
import DropTrackWire
import Foundation

/// The server's business operations: tokens, the activity lifecycle and its versions, each in one
/// store transaction, so a request is applied whole or not at all. Sending is the dispatcher's job;
/// these operations only say what must reach whom.
public final class ActivityRegistry: Sendable {
    let store: any DeliveryStore
    let configuration: ServerConfiguration
    let clock: any WallClock
    let wake: @Sendable () -> Void
    /// Creates and deletes broadcast channels (nil: broadcast activities are refused).
    let channels: (any PushTransport)?

    /// Creates a registry; `wake` nudges the dispatcher when work is queued; `channels` manages
    /// iOS 18 broadcast channels.
    public init(
        store: any DeliveryStore, configuration: ServerConfiguration, clock: any WallClock,
        channels: (any PushTransport)? = nil, wake: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.channels = channels
        self.wake = wake
    }

    func app(_ id: String) throws(ActivityError) -> AppConfiguration {
        guard let app = configuration.apps.first(where: { $0.id == id }) else {
            throw ActivityError.notFound("no app \(id)")
        }
        return app
    }

    func contracts(_ app: AppConfiguration) -> ContractBook { ContractBook(schemas: app.schemas ?? [:]) }

    /// Runs a store transaction, turning engine failures into a 503 the caller may retry.
    func transact<T>(_ body: (any StoreTransaction) throws -> T) throws(ActivityError) -> T {
        do {
            return try store.transaction(body)
        } catch let error as ActivityError {
            throw error
        } catch let error as StoreError where error.code == .conflict {
            throw ActivityError.conflict(
                code: "conflict", message: "another request changed the same record at the same time; retry")
        } catch {
            throw ActivityError.unavailable(
                code: "store_unavailable", message: "the store failed: \(error); retry shortly")
        }
    }

    // MARK: Tokens

    /// A token registration, checked and ready to store.
    public struct TokenRegistration: Sendable {
        var kind: TokenKind
        var value: String
        /// What the token goes by everywhere (logs, events, the API): never the token itself.
        public internal(set) var fingerprint: String
        var userId: String?
        var deviceId: String
        var attributesType: String?
        var activityId: String?
        var environment: TokenEnvironment?
        /// The device facts the app sent, checked, as the store keeps them (JSON text, sorted keys).
        var device: String?
    }

    /// Registers (or re-registers) a token. The same token again only refreshes `lastSeenAt`; a new
    /// token for the same device supersedes the old one (per attributes type, activity, or app).
    public func registerToken(
        app appID: String, _ command: RegisterToken
    ) throws(ActivityError) -> (token: TokenRecord, created: Bool) {
        let registration = try checkToken(app: appID, command)
        let now = clock.now()
        return try transact { tx in try self.save([registration], app: appID, tx: tx, now: now)[0] }
    }

    /// Checks a registration without touching the store: the app's contracts know its attributes
    /// type, the token has its provider's form, and the device facts read as the doctor reads them.
    public func checkToken(app appID: String, _ command: RegisterToken) throws(ActivityError) -> TokenRegistration {
        let app = try app(appID)
        let device = try Self.deviceFacts(command.device)
        let kind = command.kind
        if kind == .pushToStart {
            try contracts(app).requireKnown(command.attributesType ?? "", field: "attributesType")
        }
        if kind == .channelSubscription {
            // Named by what it joins, so subscribing again is the same record; the length keeps
            // ("a:b", "c") and ("a", "b:c") apart.
            let activity = command.activityId ?? ""
            let value = "channel-subscription:\(activity.utf8.count):\(activity):\(command.deviceId)"
            return TokenRegistration(
                kind: kind, value: value, fingerprint: Fingerprint(of: value).value, userId: nil,
                deviceId: command.deviceId, attributesType: nil, activityId: command.activityId, environment: nil,
                device: device)
        }
        let token = command.token
        var environment: TokenEnvironment? = nil
        if kind == .fcm {
            guard FCMMessage.isPlausibleToken(token) else {
                throw ActivityError.invalid(
                    "token", "'token' must be an FCM registration token (printable ASCII, no spaces)")
            }
        } else {
            guard APNsPush.isHexToken(token) else {
                throw ActivityError.invalid(
                    "token",
                    "'token' must be the hex of the ActivityKit token bytes (an even number of 0-9a-f; lengths vary)")
            }
            guard let given = command.environment else {
                throw ActivityError.missing("environment", "\"sandbox\" or \"production\"")
            }
            environment = TokenEnvironment(given)
        }
        let value = kind == .fcm ? token : token.lowercased()
        return TokenRegistration(
            kind: kind, value: value, fingerprint: Fingerprint(of: value).value, userId: command.userId,
            deviceId: command.deviceId, attributesType: command.attributesType, activityId: command.activityId,
            environment: environment, device: device)
    }

    /// Checks the optional `device` object of a registration: the facts the doctor reads, under the
    /// names of its context document (`osVersion`, `areActivitiesEnabled`, `canPostPromoted`, …).
    static func deviceFacts(_ value: JSONValue?) throws(ActivityError) -> String? {
        guard let value, value != .null else { return nil }
        let device: DoctorContext.Device
        do {
            device = try DoctorContext.Device.decode(value)
        } catch {
            throw ActivityError.invalid(
                error.field ?? "device",
                "'\(error.field ?? "device")': \(error.message); see the device facts in the README")
        }
        for (name, text) in [
            ("osVersion", device.osVersion), ("appBuild", device.appBuild), ("manufacturer", device.manufacturer),
        ] {
            // Counted as JSON Schema counts (code points), so the OpenAPI document and the server agree.
            if let text, text.unicodeScalars.count > 100 {
                throw ActivityError.invalid(
                    "device.\(name)",
                    "'device.\(name)' must be at most 100 characters, not \(text.unicodeScalars.count)")
            }
        }
        for (name, count) in [
            ("activeActivities", device.activeActivities),
            ("launchesWithoutPushToStartToken", device.launchesWithoutPushToStartToken),
        ] {
            if let count, !(0...1_000_000).contains(count) {
                throw ActivityError.invalid(
                    "device.\(name)", "'device.\(name)' must be a count from 0 to 1000000, not \(count)")
            }
        }
        return String(decoding: value.serialized(), as: UTF8.self)
    }

    /// Saves registrations in order, as if one at a time, with a few statements for the lot: each
    /// activity is checked once, and the tokens they may refresh or supersede are read together.
    func save(
        _ registrations: [TokenRegistration], app appID: String, tx: any StoreTransaction, now: Date
    ) throws -> [(token: TokenRecord, created: Bool)] {
        let subscribing = Set(registrations.filter { $0.kind == .channelSubscription }.compactMap(\.activityId))
        var versions: [String: Int64] = [:]
        // Locked (in id order, so two batches cannot deadlock): an event committing meanwhile would
        // fan out without the new tokens, and the catch-up below would queue an older version.
        for activityId in Set(registrations.compactMap(\.activityId)).sorted() {
            guard let activity = try tx.activityForUpdate(app: appID, id: activityId) else {
                throw ActivityError.notFound("no activity '\(activityId)'; start it first", field: "activityId")
            }
            guard activity.state != .dismissed else {
                throw ActivityError.activityOver(
                    message: "activity '\(activityId)' is dismissed; its tokens are discarded",
                    field: "activityId")
            }
            guard activity.channelId != nil || !subscribing.contains(activityId) else {
                throw ActivityError.conflict(
                    code: "not_broadcast",
                    message:
                        "activity '\(activityId)' has no broadcast channel; start it with 'broadcast' to let devices subscribe, or register an update token",
                    field: "activityId")
            }
            versions[activityId] = activity.version
        }
        var byFingerprint: [String: TokenRecord] = [:]
        for token in try tx.tokens(app: appID, fingerprints: registrations.map(\.fingerprint)) {
            byFingerprint[token.fingerprint] = token
        }
        var byDevice: [String: [String]] = [:]
        for token in try tx.validTokens(app: appID, deviceIds: registrations.map(\.deviceId)) {
            byFingerprint[token.fingerprint] = token
            byDevice[token.deviceId, default: []].append(token.fingerprint)
        }
        var changed: [String] = []
        var invalidated: [String: [String]] = [:]
        var results: [(token: TokenRecord, created: Bool)] = []
        results.reserveCapacity(registrations.count)
        for registration in registrations {
            if var existing = byFingerprint[registration.fingerprint], existing.isValid {
                existing.lastSeenAt = now
                // Registering again is how an app reports that a switch or the OS changed.
                if let device = registration.device { existing.deviceText = device }
                byFingerprint[existing.fingerprint] = existing
                changed.append(existing.fingerprint)
                results.append((existing, false))
                continue
            }
            // A device on the broadcast channel of this activity gets every version from it: an update
            // token of its own would bring each one twice, so it is kept but not used.
            let onChannel =
                registration.kind == .activity
                && byDevice[registration.deviceId, default: []].contains {
                    guard let other = byFingerprint[$0] else { return false }
                    return other.isValid && other.kind == .channelSubscription
                        && other.activityId == registration.activityId
                }
            for fingerprint in byDevice[registration.deviceId, default: []] {
                guard var other = byFingerprint[fingerprint], other.isValid,
                    other.fingerprint != registration.fingerprint,
                    other.activityId == registration.activityId
                else { continue }
                let replaced =
                    other.kind == registration.kind && other.attributesType == registration.attributesType
                    && other.userId == registration.userId
                // A subscribed device gets the broadcast; its update tokens would send the same version twice.
                let nowOnChannel = registration.kind == .channelSubscription && other.kind == .activity
                guard replaced || nowOnChannel else { continue }
                let reason = nowOnChannel ? "subscribed_to_channel" : "superseded"
                other.invalidatedAt = now
                other.invalidReason = reason
                byFingerprint[fingerprint] = other
                invalidated[reason, default: []].append(fingerprint)
            }
            // A token registered again after it was invalidated keeps what its device last reported.
            let earlier = byFingerprint[registration.fingerprint]
            var record = TokenRecord(
                app: appID, kind: registration.kind, token: registration.value, fingerprint: registration.fingerprint,
                userId: registration.userId, deviceId: registration.deviceId,
                attributesType: registration.attributesType, activityId: registration.activityId,
                environment: registration.environment, createdAt: now, lastSeenAt: now)
            record.deviceText =
                registration.device ?? (earlier?.deviceId == registration.deviceId ? earlier?.deviceText : nil)
            if onChannel {
                record.invalidatedAt = now
                record.invalidReason = "subscribed_to_channel"
            }
            let previous = byFingerprint.updateValue(record, forKey: record.fingerprint)
            if let previous, previous.deviceId != record.deviceId {
                // A token that moved to another device (a restored backup) leaves the old one's list.
                byDevice[previous.deviceId]?.removeAll { $0 == record.fingerprint }
            }
            // The device's list holds its valid tokens only, so a token registered again after it was
            // invalidated joins it here.
            if !byDevice[registration.deviceId, default: []].contains(record.fingerprint) {
                byDevice[registration.deviceId, default: []].append(record.fingerprint)
            }
            changed.append(record.fingerprint)
            // Registering again a token kept unused for the channel is no news.
            results.append((record, !(onChannel && previous?.invalidReason == "subscribed_to_channel")))
        }
        // Facts describe the device, not one token: its other valid tokens learn them too, so a
        // switch reported with one token does not leave another telling the old story.
        for registration in registrations where !registration.deviceId.isEmpty {
            guard let device = registration.device else { continue }
            for fingerprint in byDevice[registration.deviceId, default: []] {
                guard var other = byFingerprint[fingerprint], other.isValid, other.deviceId == registration.deviceId,
                    other.deviceText != device
                else { continue }
                other.deviceText = device
                byFingerprint[fingerprint] = other
                changed.append(fingerprint)
            }
        }
        // Tokens saved here carry their invalidation; the others are marked in place, keeping an
        // earlier reason if another transaction got there first.
        var toSave = Set<String>()
        let saved = changed.filter { toSave.insert($0).inserted }.compactMap { byFingerprint[$0] }
        for (reason, fingerprints) in invalidated.sorted(by: { $0.key < $1.key }) {
            try tx.invalidateTokens(
                app: appID, fingerprints: fingerprints.filter { !toSave.contains($0) }, reason: reason, at: now)
        }
        try tx.saveTokens(saved)
        // An update token that arrives after the activity moved on (the app was slow, or offline)
        // gets the current version now rather than at the next event (DT-041).
        var late: [String: [String]] = [:]
        for (record, created) in results
        where created && record.kind == .activity && record.isValid && (versions[record.activityId ?? ""] ?? 0) > 1 {
            late[record.activityId ?? "", default: []].append(record.fingerprint)
        }
        for (activityId, fingerprints) in late.sorted(by: { $0.key < $1.key }) {
            try tx.enqueue(
                app: appID, activityId: activityId, fingerprints: fingerprints, version: versions[activityId] ?? 1,
                availableAt: now, now: now)
        }
        return results
    }

    /// Stores checked registrations in transactions of `batch`; each is an upsert, so running an
    /// import again is harmless. Returns how many were new.
    public func importTokens(
        app appID: String, _ registrations: [TokenRegistration], batch: Int = 2000,
        progress: (Int) -> Void = { _ in }
    ) throws(ActivityError) -> Int {
        var created = 0
        for start in stride(from: 0, to: registrations.count, by: batch) {
            let slice = Array(registrations[start..<min(start + batch, registrations.count)])
            let now = clock.now()
            created += try transact { tx in
                try self.save(slice, app: appID, tx: tx, now: now).count(where: \.created)
            }
            progress(slice.count)
        }
        return created
    }

    /// Unregisters a token by fingerprint.
    public func deleteToken(app appID: String, fingerprint: String) throws(ActivityError) {
        _ = try app(appID)
        try transact { tx in
            guard try tx.token(app: appID, fingerprint: fingerprint) != nil else {
                throw ActivityError.notFound("no token with fingerprint \(fingerprint)", field: "fingerprint")
            }
            try tx.invalidateTokens(app: appID, fingerprints: [fingerprint], reason: "deleted", at: clock.now())
        }
    }

    // MARK: Activities

    /// Starts an activity: push-to-start to the user's iPhones for the attributes type, and a start
    /// to their Android devices. The same idempotency key gives the same answer and no second send.
    public func startActivity(app appID: String, _ start: StartActivity) throws(ActivityError) -> (
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
        let userId = built.userId
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
                    throw ActivityError.conflict(
                        code: "activity_exists",
                        message: "activity '\(activityId)' exists with another idempotency key",
                        field: "activityId")
                }
                var activity = built
                activity.timestamp = try Self.pushTimestamp(tx, now: now)
                let destinations = try tx.tokens(app: appID, userId: userId, kinds: [.pushToStart, .fcm]).filter {
                    $0.isValid && ($0.kind == .fcm || $0.attributesType == type)
                }
                let response = Self.startResponse(activity, destinations: destinations)
                activity.startResponse = response
                try tx.insertActivity(activity)
                try tx.enqueue(
                    app: appID, activityId: activityId, fingerprints: destinations.map(\.fingerprint), version: 1,
                    availableAt: activity.startAt ?? now, now: now)
                return (response, true)
            }
        } catch let error as ActivityError {
            throw error
        } catch let error as StoreError where error.code == .conflict {
            // A concurrent request with the same key won the race: answer as it did.
            if let winner = try transact({ try $0.activity(app: appID, idempotencyKey: key) }),
                let response = winner.startResponse
            {
                return (response, false)
            }
            throw ActivityError.conflict(
                code: "activity_exists", message: "activity '\(activityId)' already exists", field: "activityId")
        } catch {
            throw ActivityError.unavailable(
                code: "store_unavailable", message: "the store failed: \(error); retry shortly")
        }
    }

    /// Checks a start into the activity it would create: what the request states (400s), then what
    /// depends on the app's contracts and the clock (422s).
    func buildStart(_ start: StartActivity, app: AppConfiguration, contracts: ContractBook)
        throws(ActivityError) -> ActivityRecord
    {
        let appID = app.id
        let type = start.attributesType
        if let event = start.event, !DeliveryMapper.eventTypes.contains(event.type) {
            throw ActivityError.invalid(
                "event.type",
                "unknown event type '\(event.type)'; the types are \(DeliveryMapper.eventTypes.joined(separator: ", "))"
            )
        }
        try Self.checkAlert(start.alert)
        let startAt = start.startAt.map { Date(timeIntervalSince1970: Double($0)) }
        let endAt = start.endAt.map { Date(timeIntervalSince1970: Double($0)) }
        let broadcast = start.broadcast
        if let expiration = broadcast?.expiration, expiration != 0, broadcast?.storagePolicy == .noMessageStored {
            throw ActivityError.unprocessable(
                message:
                    "a no-storage channel takes apns-expiration 0 only (APNs answers BadExpirationDate); drop 'expiration' or use \"most-recent\"",
                field: "broadcast.expiration")
        }

        let now = clock.now()
        try contracts.requireKnown(type, field: "attributesType")
        let attributes = try contracts.attributes(start.attributes, type: type, field: "attributes")
        try requireFuture(start.staleDate, "staleDate", now: now)
        try requireFuture(start.endAt, "endAt", now: now)
        let schedule = try start.schedule.map { entries throws(ActivityError) in
            try scheduleStates(entries, type: type, contracts: contracts)
        }
        var state: JSONValue
        var mapperState: JSONValue? = nil
        if let givenState = start.contentState {
            state = try contracts.contentState(givenState, type: type, field: "contentState")
        } else if let event = start.event {
            guard type == DeliveryAttributes.typeName else {
                throw ActivityError.unprocessable(
                    message: "events are for DeliveryAttributes; give 'contentState' for \(type)", field: "event")
            }
            let mapped = try DeliveryMapper.apply(
                type: event.type, data: event.data, current: .null, mapperState: nil, now: now)
            state = mapped.contentState
            mapperState = mapped.mapperState
        } else {
            state = schedule?.arrayValue?.first?["contentState"] ?? .object([:])
        }
        if let schedule, let first = Self.currentEntry(schedule, at: now) { state = first }
        var memory = mapperState?.objectValue ?? [:]
        memory["startAlert"] = start.alert
        if let expiration = broadcast?.expiration { memory["broadcastExpiration"] = .number(Double(expiration)) }
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

    /// What the server keeps in an activity's mapper state for itself; a mapper's new state keeps them.
    static let serverMemoryKeys = ["startAlert", "broadcastExpiration", "channelOwned"]

    /// The channel was created by the server (not given by the caller), so dismissal deletes it; a
    /// channel the caller brought may serve other activities and is left alone.
    static func markChannelOwned(_ activity: inout ActivityRecord) {
        var memory = activity.mapperState?.objectValue ?? [:]
        memory["channelOwned"] = .bool(true)
        activity.mapperState = .object(memory)
    }

    /// Creates the broadcast channel a new activity asked for; returns its id (to delete it if the
    /// activity is not stored after all).
    func openChannel(_ activity: inout ActivityRecord, app: AppConfiguration) throws(ActivityError) -> String? {
        guard let raw = activity.channelPolicy, activity.channelId == nil,
            let policy = MessageStoragePolicy(rawValue: raw)
        else { return nil }
        guard let channels, app.apns != nil else {
            throw ActivityError.unprocessable(
                code: "no_credentials", message: "broadcast activities need the app's APNs credentials",
                field: "broadcast")
        }
        switch channels.createChannel(app: app.id, policy: policy) {
        case .success(let id):
            activity.channelId = id
            Self.markChannelOwned(&activity)
            return id
        case .failure(let failure):
            throw ActivityError.unavailable(
                code: "channel_unavailable", message: "APNs did not create the channel: \(failure.explanation); retry",
                field: "broadcast")
        }
    }

    func closeChannelUnlessStored(_ id: String, app: String, activityId: String) {
        let stored = try? store.transaction { try $0.activity(app: app, id: activityId)?.channelId }
        if stored != id { _ = channels?.deleteChannel(app: app, id: id) }
    }

    /// The broadcast channel an activity uses, if any.
    public func channelOf(app: String, activityId: String) -> String? {
        (try? store.transaction { try $0.activity(app: app, id: activityId)?.channelId }) ?? nil
    }

    /// An `alert`: `title` and `body` are text or a localized `{loc-key, loc-args}` object, and at
    /// least one is given (iOS shows nothing for an alert without either).
    static func checkAlert(_ alert: JSONValue) throws(ActivityError) {
        let reader = try FieldReader(alert, prefix: "alert")
        try reader.refuseUnknown(["title", "body", "sound"])
        for key in ["title", "body"] {
            guard let value = reader.object[key] else { continue }
            guard value.stringValue != nil || value.objectValue != nil else {
                throw ActivityError.invalid(
                    "alert.\(key)", "'alert.\(key)' is a string or a {\"loc-key\", \"loc-args\"} object")
            }
        }
        _ = try reader.string("sound", required: false)
        guard alert["title"] != nil || alert["body"] != nil else {
            throw ActivityError.missing("alert.title", "a title or body for the banner")
        }
    }

    /// The answer to a start, kept with the activity for replays. It counts the destinations
    /// rather than listing them: a start may fan out to 100k devices, and `GET` lists them.
    static func startResponse(_ activity: ActivityRecord, destinations: [TokenRecord]) -> JSONValue {
        .object([
            "activityId": .string(activity.id), "state": .string(activity.state.rawValue),
            "version": .number(Double(activity.version)), "timestamp": .number(Double(activity.timestamp)),
            "destinations": .number(Double(destinations.count)),
            "destinationsByKind": .object(
                Dictionary(grouping: destinations, by: \.kind.rawValue).mapValues { .number(Double($0.count)) }),
            "startAt": activity.startAt.map { .number($0.timeIntervalSince1970.rounded()) } ?? .null,
            "channelId": activity.channelId.map { .string($0) } ?? .null,
        ])
    }

    func defaultStale(_ now: Date) -> Int64? {
        configuration.defaultStaleSeconds > 0
            ? Int64(now.timeIntervalSince1970 + configuration.defaultStaleSeconds) : nil
    }

    func requireFuture(_ value: Int64?, _ key: String, now: Date) throws(ActivityError) {
        if let value, Double(value) < now.timeIntervalSince1970 {
            throw ActivityError.unprocessable(
                message: "'\(key)' is in the past; iOS would apply it at once", field: key)
        }
    }

    /// The schedule, sorted by time, with each content-state checked against the contract (an
    /// entry's errors name its index as given).
    func scheduleStates(
        _ entries: [StartActivity.ScheduleEntry], type: String, contracts: ContractBook
    ) throws(ActivityError) -> JSONValue {
        let sorted = entries.enumerated().map { (at: $0.element.at, state: $0.element.contentState, index: $0.offset) }
            .sorted { $0.at < $1.at }
        var checked: [JSONValue] = []
        for entry in sorted {
            let state = try contracts.contentState(
                entry.state, type: type, field: "schedule[\(entry.index)].contentState")
            checked.append(.object(["at": .number(Double(entry.at)), "contentState": state]))
        }
        return .array(checked)
    }

    /// The schedule entry in force at `time`: the last one whose `at` has come.
    static func currentEntry(_ schedule: JSONValue, at time: Date) -> JSONValue? {
        schedule.arrayValue?.last { ($0["at"]?.numberValue ?? .infinity) <= time.timeIntervalSince1970 }?[
            "contentState"]
    }

    /// Refuses a version whose APNs payload would exceed 4096 bytes, before anything is stored.
    func checkSize(_ activity: ActivityRecord, app: AppConfiguration, contracts: ContractBook) throws(ActivityError) {
        let builder = PayloadBuilder(contracts: contracts, fcmTTLSeconds: configuration.fcmTTLSeconds)
        let probe = TokenRecord(
            app: app.id, kind: activity.event == .start ? .pushToStart : .activity,
            token: String(repeating: "0", count: 64),
            fingerprint: "", userId: nil, deviceId: "", attributesType: nil, activityId: nil, environment: nil,
            createdAt: Date(), lastSeenAt: Date())
        if let push = try? builder.apnsPush(activity: activity, token: probe, bundleId: app.bundleId ?? "app"),
            push.payload.count > APNsLimits.devicePayloadBytes
        {
            throw ActivityError.unprocessable(
                code: "payload_too_large",
                message:
                    "the APNs payload would be \(push.payload.count) bytes; the limit is 4096. Shorten the content-state or attributes",
                field: "contentState")
        }
        let map = builder.dataMap(activity)
        if FCMLimits.size(of: map) > FCMLimits.dataBytes {
            throw ActivityError.unprocessable(
                code: "payload_too_large",
                message: "the FCM data map would be \(FCMLimits.size(of: map)) bytes; the limit is 4096",
                field: "contentState")
        }
    }

    /// Seconds for the `timestamp` of a new version: the database's clock when replicas share one,
    /// so a replica whose clock runs ahead cannot stamp versions in the future for all the others.
    static func pushTimestamp(_ tx: any StoreTransaction, now: Date) throws -> Int64 {
        Int64((try tx.databaseTime() ?? now).timeIntervalSince1970.rounded(.down))
    }

    /// A new version of an activity: a newer timestamp, the priority after the budget, and a send
    /// requested to every live destination. Bursts coalesce: the outbox keeps one row per token
    /// and the sender reads the newest version.
    func commitVersion(
        _ activity: inout ActivityRecord, event: ActivityEvent, state: JSONValue, alert: JSONValue?, terminal: Bool,
        requestedPriority: Int?, app: AppConfiguration, tx: any StoreTransaction, now: Date
    ) throws -> (notes: [String], destinations: Int) {
        var notes: [String] = []
        let nowUnix = Int64(now.timeIntervalSince1970.rounded(.down))
        let unsent = try tx.hasPendingOutbox(app: activity.app, activityId: activity.id)
        var priority = requestedPriority ?? (event != .update || alert != nil || terminal ? 10 : 5)
        var carriedAlert = alert
        if unsent {
            // The previous version has not reached everyone: its urgency and alert carry over.
            priority = max(priority, activity.priority)
            if carriedAlert == nil && activity.event != .start { carriedAlert = activity.alert }
        }
        var downgraded = false
        let cap = app.priority10PerHour ?? configuration.priority10PerHour
        let recent = activity.priority10Times.filter { $0 > nowUnix - 3600 }
        if priority == 10 && event == .update && recent.count >= cap {
            priority = 5
            downgraded = true
            notes.append(
                "priority 10 downgraded to 5: \(recent.count) priority-10 updates in the last hour (cap \(cap))")
        }
        activity.priority10Times = priority == 10 ? recent + [nowUnix] : recent
        activity.version += 1
        activity.timestamp = max(try Self.pushTimestamp(tx, now: now), activity.timestamp + 1)
        activity.event = event
        activity.contentState = state
        activity.alert = carriedAlert
        activity.priority = priority
        activity.priorityDowngraded = downgraded
        activity.updatedAt = now
        if activity.state == .stale && event == .update { activity.state = .active }
        try checkSize(activity, app: app, contracts: contracts(app))
        var destinations = try tx.tokens(app: activity.app, activityId: activity.id).filter(\.isValid)
        destinations += try tx.tokens(app: activity.app, userId: activity.userId, kinds: [.fcm]).filter(\.isValid)
        try tx.updateActivity(activity)
        // iOS 18 devices started on the channel get one broadcast; older ones their update tokens.
        let channel = activity.channelId.map { [OutboxDestination.channel(id: $0)] } ?? []
        try tx.enqueue(
            app: activity.app, activityId: activity.id,
            destinations: destinations.map { .token(fingerprint: $0.fingerprint) } + channel,
            version: activity.version,
            availableAt: now, now: now)
        if !notes.isEmpty {
            try tx.appendTimeline(
                notes.map {
                    TimelineEntry(
                        app: activity.app, activityId: activity.id, at: now, destination: "-", provider: "server",
                        event: event.rawValue, version: activity.version, status: 0, reason: "priority_downgraded",
                        remedy: "none", latencyMs: 0, priority: priority, attempt: 0, note: $0)
                })
        }
        return (notes, destinations.count + channel.count)
    }

    func mutate(
        app appID: String, activityId: String,
        _ change: (inout ActivityRecord, any StoreTransaction, AppConfiguration, Date) throws -> ActivityVersion
    ) throws(ActivityError) -> ActivityVersion {
        let app = try app(appID)
        let now = clock.now()
        let result = try transact { tx in
            guard var activity = try tx.activityForUpdate(app: appID, id: activityId) else {
                throw ActivityError.notFound("no activity '\(activityId)'", field: "activityId")
            }
            return try change(&activity, tx, app, now)
        }
        wake()
        return result
    }

    func requireOpen(_ activity: ActivityRecord) throws(ActivityError) {
        switch activity.state {
        case .ended, .dismissed:
            throw ActivityError.conflict(
                code: "activity_ended",
                message: "activity '\(activity.id)' has ended; iOS ignores pushes after the end",
                field: "activityId")
        case .pending, .active, .stale: break
        }
    }

    /// Applies a domain event through the mapper (`delivery.step`, `delivery.reassign`, `delivery.eta`).
    /// A terminal step ends the activity unless the event asks to keep it open (`terminal: .update`).
    public func applyEvent(app appID: String, activityId: String, _ event: ApplyEvent) throws(ActivityError)
        -> ActivityVersion
    {
        let type = event.type
        guard DeliveryMapper.eventTypes.contains(type) else {
            throw ActivityError.invalid(
                "type",
                "unknown event type '\(type)'; the types are \(DeliveryMapper.eventTypes.joined(separator: ", "))")
        }
        return try mutate(app: appID, activityId: activityId) { activity, tx, app, now in
            try self.requireOpen(activity)
            guard activity.attributesType == DeliveryAttributes.typeName else {
                throw ActivityError.unprocessable(
                    message: "events are for DeliveryAttributes; PATCH the content-state of \(activity.attributesType)",
                    field: "type")
            }
            let mapped = try DeliveryMapper.apply(
                type: type, data: event.data, current: activity.contentState, mapperState: activity.mapperState,
                now: now)
            var memory = mapped.mapperState?.objectValue ?? [:]
            for key in Self.serverMemoryKeys { memory[key] = activity.mapperState?[key] }
            activity.mapperState = .object(memory)
            let ending = mapped.terminal && event.terminal == .end
            if ending { self.endState(&activity, dismissal: nil, now: now) }
            let (notes, count) = try self.commitVersion(
                &activity, event: ending ? .end : .update, state: mapped.contentState, alert: mapped.alert,
                terminal: mapped.terminal, requestedPriority: nil, app: app, tx: tx, now: now)
            return ActivityVersion(activity, destinations: count, notes: notes)
        }
    }

    /// A direct update of the content-state.
    public func updateActivity(app appID: String, activityId: String, _ update: UpdateActivity)
        throws(ActivityError) -> ActivityVersion
    {
        if let priority = update.priority, priority != 5 && priority != 10 {
            throw ActivityError.invalid("priority", "'priority' is 5 or 10 for Live Activities")
        }
        if let alert = update.alert { try Self.checkAlert(alert) }
        return try mutate(app: appID, activityId: activityId) { activity, tx, app, now in
            try self.requireOpen(activity)
            let contracts = self.contracts(app)
            let state = try contracts.contentState(
                update.contentState, type: activity.attributesType, field: "contentState")
            if let stale = update.staleDate {
                try self.requireFuture(stale, "staleDate", now: now)
                activity.staleDate = stale
            } else if let fallback = self.defaultStale(now) {
                activity.staleDate = fallback
            }
            if let relevance = update.relevanceScore { activity.relevanceScore = relevance }
            let (notes, count) = try self.commitVersion(
                &activity, event: .update, state: state, alert: update.alert, terminal: false,
                requestedPriority: update.priority, app: app, tx: tx, now: now)
            return ActivityVersion(activity, destinations: count, notes: notes)
        }
    }

    /// Ends an activity, with a final content-state or the current one.
    public func endActivity(app appID: String, activityId: String, _ end: EndActivity) throws(ActivityError)
        -> ActivityVersion
    {
        if let alert = end.alert { try Self.checkAlert(alert) }
        return try mutate(app: appID, activityId: activityId) { activity, tx, app, now in
            try self.requireOpen(activity)
            var state = activity.contentState
            if let given = end.contentState {
                state = try self.contracts(app).contentState(
                    given, type: activity.attributesType, field: "contentState")
            }
            self.endState(&activity, dismissal: end.dismissal, now: now)
            let (notes, count) = try self.commitVersion(
                &activity, event: .end, state: state, alert: end.alert, terminal: true, requestedPriority: nil,
                app: app, tx: tx, now: now)
            return ActivityVersion(activity, destinations: count, notes: notes)
        }
    }

    func endState(_ activity: inout ActivityRecord, dismissal: DismissalPolicy?, now: Date) {
        let nowUnix = now.timeIntervalSince1970
        activity.state = .ended
        switch dismissal ?? .default {
        case .default:
            activity.dismissalDate = nil
            activity.dismissAt = now.addingTimeInterval(4 * 3600)
        case .immediate:
            activity.dismissalDate = Int64(nowUnix)
            activity.dismissAt = now
        case .at(let unix):
            let capped = min(Double(unix), nowUnix + 4 * 3600)
            activity.dismissalDate = Int64(capped)
            activity.dismissAt = Date(timeIntervalSince1970: max(capped, nowUnix))
        }
    }

    /// State, latest content-state, devices (by fingerprint) and the timeline.
    public func describe(app appID: String, activityId: String, timelineLimit: Int = 200)
        throws(ActivityError) -> ActivitySnapshot
    {
        _ = try app(appID)
        return try transact { tx in
            guard let activity = try tx.activity(app: appID, id: activityId) else {
                throw ActivityError.notFound("no activity '\(activityId)'", field: "activityId")
            }
            var devices = try tx.tokens(app: appID, activityId: activityId)
            devices += try tx.tokens(app: appID, userId: activity.userId, kinds: [.pushToStart, .fcm]).filter {
                $0.kind == .fcm || $0.attributesType == activity.attributesType
            }
            devices += try tx.channelSubscriptions(app: appID, activityId: activityId)
            let timeline = try tx.timeline(app: appID, activityId: activityId, limit: timelineLimit)
            let pending = try tx.pendingOutbox(app: appID, activityId: activityId)
            return ActivitySnapshot(activity: activity, devices: devices, pendingSends: pending, timeline: timeline)
        }
    }

    /// A timeline entry as the event stream and `GET /v1/activities/{id}` show it.
    public static func timelineJSON(_ entry: TimelineEntry) -> JSONValue {
        .object([
            "at": .number((entry.at.timeIntervalSince1970 * 1000).rounded() / 1000),
            "destination": .string(entry.destination),
            "provider": .string(entry.provider), "event": .string(entry.event),
            "version": .number(Double(entry.version)),
            "status": .number(Double(entry.status)), "reason": .string(entry.reason), "remedy": .string(entry.remedy),
            "latencyMs": .number((entry.latencyMs * 10).rounded() / 10), "priority": .number(Double(entry.priority)),
            "attempt": .number(Double(entry.attempt)), "note": entry.note.map { .string($0) } ?? .null,
        ])
    }
}
