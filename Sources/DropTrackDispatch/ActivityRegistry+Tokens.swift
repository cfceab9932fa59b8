import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

// Tokens: registration (checked, then saved with superseding), import in batches, and deletion.
extension ActivityRegistry {
    /// A token registration, checked and ready to store.
    public struct TokenRegistration: Sendable {
        var kind: TokenKind
        var value: String
        /// What the token goes by everywhere (logs, events, the API): never the token itself.
        public internal(set) var fingerprint: Fingerprint
        var userId: String?
        var deviceId: String
        var attributesType: String?
        var activityId: String?
        var environment: APNsEnvironment?
        /// The device facts the app sent, checked, as the store keeps them (JSON text, sorted keys).
        var device: String?
        /// The user whose device credential registers it; nil for the app's backend (its API key).
        var registeredBy: String? = nil
    }

    /// Registers (or re-registers) a token. The same token again only refreshes `lastSeenAt`; a new
    /// token for the same device supersedes the old one (per attributes type, activity, or app).
    /// `user` is the device credential's user: it may register under a device id that holds no other
    /// user's valid token, and its facts reach its own tokens only.
    public func registerToken(
        app appID: String, _ command: RegisterToken, by user: String? = nil
    ) throws(Refusal) -> (token: TokenRecord, created: Bool) {
        var registration = try checkToken(app: appID, command)
        registration.registeredBy = user
        let now = clock.now()
        return try transact { tx in try self.save([registration], app: appID, tx: tx, now: now)[0] }
    }

    /// Checks a registration without touching the store: the app's contracts know its attributes
    /// type, the token has its provider's form, and the device facts read as the doctor reads them.
    public func checkToken(app appID: String, _ command: RegisterToken) throws(Refusal) -> TokenRegistration {
        let app = try app(appID)
        let device = try Self.deviceFacts(command.device)
        let kind = command.kind
        if kind == .pushToStart {
            try contracts(app).requireKnown(command.attributesType ?? "", field: "attributesType")
        }
        if kind == .channelSubscription {
            // Named by what it joins, so subscribing again is the same record; the length keeps
            // ("a:b", "c") and ("a", "b:c") apart.
            let activity = command.activityId?.rawValue ?? ""
            let value = "channel-subscription:\(activity.utf8.count):\(activity):\(command.deviceId.rawValue)"
            return TokenRegistration(
                kind: kind, value: value, fingerprint: Fingerprint(of: value), userId: nil,
                deviceId: command.deviceId.rawValue, attributesType: nil, activityId: command.activityId?.rawValue,
                environment: nil,
                device: device)
        }
        let token = command.token
        var environment: APNsEnvironment? = nil
        if kind == .fcm {
            guard FCMMessage.isPlausibleToken(token) else {
                throw Refusal.invalid(
                    "token", "'token' must be an FCM registration token (printable ASCII, no spaces)")
            }
        } else {
            guard APNsPush.isHexToken(token) else {
                throw Refusal.invalid(
                    "token",
                    "'token' must be the hex of the ActivityKit token bytes (an even number of 0-9a-f; lengths vary)")
            }
            guard let given = command.environment else {
                throw Refusal.missing("environment", "\"sandbox\" or \"production\"")
            }
            environment = given
        }
        let value = kind == .fcm ? token : token.lowercased()
        return TokenRegistration(
            kind: kind, value: value, fingerprint: Fingerprint(of: value), userId: command.userId?.rawValue,
            deviceId: command.deviceId.rawValue, attributesType: command.attributesType,
            activityId: command.activityId?.rawValue,
            environment: environment, device: device)
    }

    /// Checks the optional `device` object of a registration: the facts the doctor reads, under the
    /// names of its context document (`osVersion`, `areActivitiesEnabled`, `canPostPromoted`, …).
    static func deviceFacts(_ value: JSONValue?) throws(Refusal) -> String? {
        guard let value, value != .null else { return nil }
        let device = try DeviceFacts.decode(value)
        for (name, text) in [
            ("osVersion", device.osVersion), ("appBuild", device.appBuild), ("manufacturer", device.manufacturer),
        ] {
            // Counted as JSON Schema counts (code points), so the OpenAPI document and the server agree.
            if let text, text.unicodeScalars.count > 100 {
                throw Refusal.invalid(
                    "device.\(name)",
                    "'device.\(name)' must be at most 100 characters, not \(text.unicodeScalars.count)")
            }
        }
        for (name, count) in [
            ("activeActivities", device.activeActivities),
            ("launchesWithoutPushToStartToken", device.launchesWithoutPushToStartToken),
        ] {
            if let count, !(0...1_000_000).contains(count) {
                throw Refusal.invalid(
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
                throw Refusal.notFound("no activity '\(activityId)'; start it first", field: "activityId")
            }
            guard activity.state != .dismissed else {
                throw Refusal.activityOver(
                    message: "activity '\(activityId)' is dismissed; its tokens are discarded",
                    field: "activityId")
            }
            guard activity.channelId != nil || !subscribing.contains(activityId) else {
                throw Refusal.conflict(
                    code: .notBroadcast,
                    message:
                        "activity '\(activityId)' has no broadcast channel; start it with 'broadcast' to let devices subscribe, or register an update token",
                    field: "activityId")
            }
            versions[activityId] = activity.version
        }
        var byFingerprint: [Fingerprint: TokenRecord] = [:]
        for token in try tx.tokens(app: appID, fingerprints: registrations.map(\.fingerprint)) {
            byFingerprint[token.fingerprint] = token
        }
        var byDevice: [String: [Fingerprint]] = [:]
        for token in try tx.validTokens(app: appID, deviceIds: registrations.map(\.deviceId)) {
            byFingerprint[token.fingerprint] = token
            byDevice[token.deviceId, default: []].append(token.fingerprint)
        }
        for registration in registrations {
            guard let user = registration.registeredBy else { continue }
            try Self.refuseTakenDevice(
                registration, user: user,
                tokens: byDevice[registration.deviceId, default: []].compactMap { byFingerprint[$0] })
        }
        var changed: [Fingerprint] = []
        var invalidated: [InvalidationReason: [Fingerprint]] = [:]
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
                let reason: InvalidationReason = nowOnChannel ? .subscribedToChannel : .superseded
                other.invalidatedAt = now
                other.invalidReason = reason
                byFingerprint[fingerprint] = other
                invalidated[reason, default: []].append(fingerprint)
            }
            // A token registered again after it was invalidated keeps what its device last reported.
            let earlier = byFingerprint[registration.fingerprint]
            var record = TokenRecord(
                app: appID, kind: registration.kind, token: DeviceToken(registration.value),
                fingerprint: registration.fingerprint,
                userId: registration.userId, deviceId: registration.deviceId,
                attributesType: registration.attributesType, activityId: registration.activityId,
                environment: registration.environment, createdAt: now, lastSeenAt: now)
            record.deviceText =
                registration.device ?? (earlier?.deviceId == registration.deviceId ? earlier?.deviceText : nil)
            if onChannel {
                record.invalidatedAt = now
                record.invalidReason = .subscribedToChannel
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
            results.append((record, !(onChannel && previous?.invalidReason == .subscribedToChannel)))
        }
        // Facts describe the device, not one token: its other valid tokens learn them too, so a
        // switch reported with one token does not leave another telling the old story.
        for registration in registrations where !registration.deviceId.isEmpty {
            guard let device = registration.device else { continue }
            // They describe the device for its user, though: never another user's tokens.
            let user = registration.registeredBy ?? registration.userId
            for fingerprint in byDevice[registration.deviceId, default: []] {
                guard var other = byFingerprint[fingerprint], other.isValid, other.deviceId == registration.deviceId,
                    other.deviceText != device, other.userId == nil || user == nil || other.userId == user
                else { continue }
                other.deviceText = device
                byFingerprint[fingerprint] = other
                changed.append(fingerprint)
            }
        }
        // Tokens saved here carry their invalidation; the others are marked in place, keeping an
        // earlier reason if another transaction got there first.
        var toSave = Set<Fingerprint>()
        let saved = changed.filter { toSave.insert($0).inserted }.compactMap { byFingerprint[$0] }
        for (reason, fingerprints) in invalidated.sorted(by: { $0.key.stored < $1.key.stored }) {
            try tx.invalidateTokens(
                app: appID, fingerprints: fingerprints.filter { !toSave.contains($0) }, reason: reason, at: now)
        }
        try tx.saveTokens(saved)
        // An update token that arrives after the activity moved on (the app was slow, or offline)
        // gets the current version now rather than at the next event (DT-041).
        var late: [String: [Fingerprint]] = [:]
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
    ) throws(Refusal) -> Int {
        var created = 0
        for start in stride(from: 0, to: registrations.count, by: batch) {
            let slice = Array(registrations[start..<min(start + batch, registrations.count)])
            let now = clock.now()
            created += try transact { tx in
                try self.save(slice, app: appID, tx: tx, now: now).count(where: \.created)
            }
            progress(slice.count)
        }
        // The event that follows an import would otherwise be planned from the table as it was before it.
        if created > 0 { try transact { tx in try tx.refreshTokenStatistics() } }
        return created
    }

    /// Unregisters a token by fingerprint.
    public func deleteToken(app appID: String, fingerprint: Fingerprint) throws(Refusal) {
        _ = try app(appID)
        try transact { tx in
            guard try tx.token(app: appID, fingerprint: fingerprint) != nil else {
                throw Refusal.notFound("no token with fingerprint \(fingerprint)", field: "fingerprint")
            }
            try tx.invalidateTokens(app: appID, fingerprints: [fingerprint], reason: .deleted, at: clock.now())
        }
    }
}

extension ActivityRegistry {
    /// A device credential may not register under a device id that holds another user's valid tokens:
    /// its tokens would make the device look shared, so the owner would be refused its own update
    /// tokens, reports and tags, and the newcomer would inherit the device's tags. Registering one of
    /// those very tokens is allowed: whoever holds the token is that device (a phone whose user changed).
    static func refuseTakenDevice(_ registration: TokenRegistration, user: String, tokens: [TokenRecord])
        throws(Refusal)
    {
        let others = tokens.filter {
            $0.isValid && $0.userId != nil && $0.userId != user && $0.fingerprint != registration.fingerprint
        }
        guard !others.isEmpty else { return }
        throw Refusal.conflict(
            code: .deviceTaken,
            message:
                "device '\(registration.deviceId)' holds another user's tokens; a device id names one installation (a UUID the app makes at first launch and keeps), so send this device's own id, or, if this phone changed user, have the backend unregister the previous user's tokens first",
            field: "deviceId")
    }
}
