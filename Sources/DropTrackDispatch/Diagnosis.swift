import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

extension ActivityRegistry {
    /// What the doctor needs from the store about an activity and, when given, one of its tokens.
    public func doctorFacts(app appID: String, activityId: String, tokenFingerprint: Fingerprint?) throws(Refusal)
        -> (
            activity: ActivityRecord, token: TokenRecord?, deviceCount: Int
        )
    {
        _ = try app(appID)
        return try transact { tx in
            guard let activity = try tx.activity(app: appID, id: activityId) else {
                throw Refusal.notFound("no activity '\(activityId)'", field: "activityId")
            }
            let token = try tokenFingerprint.flatMap { try tx.token(app: appID, fingerprint: $0) }
            let devices = try tx.tokens(app: appID, activityId: activityId).filter(\.isValid).count
            return (activity, token, devices)
        }
    }

    /// How long after a delivered push-to-start the app should have registered the activity's
    /// update token; later than this, the server says it never arrived.
    static let updateTokenGraceSeconds: TimeInterval = 60

    /// What each device's reported facts (`device` at registration) make the doctor find in the push
    /// that device gets now: the findings the facts add, so the push's own findings are not repeated
    /// once per device.
    func deviceFindings(
        activity: ActivityRecord, tokens: [TokenRecord], app: AppConfiguration, now: Date
    ) -> [(device: String, finding: LintFinding)] {
        let builder = PayloadBuilder(
            contracts: ContractBook(schemas: app.schemas ?? [:]), fcmTTLSeconds: configuration.fcmTTLSeconds)
        var found: [(device: String, finding: LintFinding)] = []
        // One device with several tokens (push-to-start and update) is told each trap once.
        var told = Set<String>()
        // Every stored activity id was checked by the id rule when the activity was created.
        guard let activityID = ActivityID(activity.id) else { return [] }
        for token in tokens where token.isValid {
            guard let reported = token.device, let facts = try? DeviceFacts.decode(reported) else { continue }
            let push: ExaminedPush
            switch token.kind {
            case .fcm:
                push = .fcm(builder.fcmMessage(activity: activity, token: token), projectID: app.id)
            case .activity, .pushToStart:
                guard let bundle = app.bundleId,
                    let apns = try? builder.apnsPush(activity: activity, token: token, bundleId: bundle)
                else { continue }
                push = .apns(apns)
            case .channelSubscription:
                guard let bundle = app.bundleId, let channel = activity.channelId,
                    let built = try? builder.apnsPayload(activity: activity, start: false)
                else { continue }
                push = .apns(
                    APNsPush(channelID: channel, bundleID: bundle, payload: built.payload, priority: built.priority))
            }
            let device = ExaminedDevice(
                push: push, kind: token.kind, environment: token.environment, activityId: activityID,
                activityState: activity.state, facts: facts, now: now)
            for finding in examiner.findingsAdded(by: device) {
                let key =
                    token.deviceId.isEmpty
                    ? token.fingerprint.value + finding.trap : token.deviceId + "\u{0}" + finding.trap
                if told.insert(key).inserted { found.append((token.fingerprint.value, finding)) }
            }
        }
        return found
    }

    /// What the server knows of why a device might not show an activity's latest state: tokens
    /// invalidated, sends that failed or were given up, the priority-10 budget, environments that
    /// do not match the app's, no update token after a push-to-start, a stale date passed, and
    /// which version each device last accepted. Each finding names its trap in the catalog.
    public func diagnose(app typedApp: AppID, activityId typedActivity: ActivityID) throws(Refusal) -> Diagnosis {
        // The store's rows keep ids as text.
        let appID = typedApp.rawValue
        let activityId = typedActivity.rawValue
        let app = try app(appID)
        let now = clock.now()
        return try transact { tx in
            guard let activity = try tx.activity(app: appID, id: activityId) else {
                throw Refusal.notFound("no activity '\(activityId)'", field: "activityId")
            }
            let updateTokens = try tx.tokens(app: appID, activityId: activityId)
            let startTokens = try self.ownerTokens(activity, kinds: [.pushToStart], tx: tx).filter {
                contracts(app).pushToStartMatches(tokenType: $0.attributesType, type: activity.attributesType)
            }
            let androidTokens = try self.ownerTokens(activity, kinds: [.fcm], tx: tx)
            let timeline = try tx.timeline(app: appID, activityId: activityId, limit: 2000)
            let pending = try tx.pendingOutbox(app: appID, activityId: activityId)
            var findings: [Diagnosis.Finding] = []
            func finding(
                _ trap: String?, _ severity: LintFinding.Severity, _ message: String, fix: String,
                device: String? = nil
            ) {
                findings.append(.init(trap: trap, severity: severity, message: message, fix: fix, device: device))
            }

            // A dismissed activity's tokens were discarded (and, after tokenRetentionDays, deleted):
            // missing tokens say nothing about it any more.
            let over = activity.state == .dismissed
            let startsDelivered = timeline.filter { $0.event == "start" && (200..<300).contains($0.status) }
            if !over, let first = startsDelivered.first, updateTokens.isEmpty,
                now.timeIntervalSince(first.at) > Self.updateTokenGraceSeconds
            {
                finding(
                    "DT-041", .error,
                    "the push-to-start was accepted \(Int(saturating: now.timeIntervalSince(first.at))) s ago and no update token was registered for this activity, so updates and the end reach no iPhone",
                    fix:
                        "in the app, observe Activity.activityUpdates from launch and POST each activity's pushTokenUpdates to /v1/tokens/activity"
                )
            }
            if !over && startTokens.isEmpty && updateTokens.isEmpty && activity.channelId == nil {
                finding(
                    "DT-040", .warning, "the user has no push-to-start token for \(activity.attributesType)",
                    fix: "register pushToStartTokenUpdates at launch (iOS 17.2+); until then only the app can start")
            }
            // Each token goes to its own environment's host, except when `apnsHost` sends everything
            // to one server (an emulator): then the app's environment is the only one.
            let expected = configuration.apnsHost == nil ? nil : app.apns?.environment
            for token in startTokens + updateTokens where token.isValid {
                if let expected, let environment = token.environment?.rawValue, environment != expected {
                    finding(
                        "DT-059", .error,
                        "a \(environment) token, but every push goes to the \(expected) host set by apnsHost: it answers BadDeviceToken",
                        fix: "register tokens with the environment of the build (debug builds are sandbox)",
                        device: token.fingerprint.value)
                }
            }
            for token in updateTokens + startTokens + androidTokens where !token.isValid {
                let reason = token.invalidReason
                let trap: String? =
                    switch reason {
                    case .superseded: "DT-038"
                    case .provider("UNREGISTERED"): "DT-102"
                    case .activityEnded: "DT-037"
                    default: nil
                    }
                let fix =
                    switch reason {
                    case .superseded: "nothing to do: the device registered a newer token"
                    case .subscribedToChannel:
                        "nothing to do: the device gets every version from the broadcast channel"
                    case .activityEnded: "nothing to do: the activity is over"
                    default: "the device must register a new token"
                    }
                finding(
                    trap, .info, "token \(token.kind.rawValue) invalidated: \(reason?.stored ?? "invalidated")",
                    fix: fix,
                    device: token.fingerprint.value)
            }
            let cap = app.priority10PerHour ?? configuration.priority10PerHour
            let nowUnix = Int64(now.timeIntervalSince1970)
            let recent = activity.priority10Times.filter { $0 > nowUnix - 3600 }.count
            let downgraded = timeline.filter { $0.reason == "priority_downgraded" }.count
            if recent >= cap || downgraded > 0 {
                finding(
                    "DT-050", .warning,
                    "\(recent) priority-10 sends in the last hour (cap \(cap)); \(downgraded) update(s) went at priority 5 instead",
                    fix: "send routine updates at priority 5 and keep 10 for what must show at once")
            }
            var failures: [String: (count: Int, last: TimelineEntry)] = [:]
            for entry in timeline
            where entry.status >= 400 || entry.remedy == .deadLetter
                || entry.reason == "outcome_unknown"
            {
                let key = "\(entry.provider) \(entry.status) \(entry.reason)"
                failures[key] = ((failures[key]?.count ?? 0) + 1, entry)
            }
            for (key, value) in failures.sorted(by: { $0.key < $1.key }) {
                finding(
                    nil, .warning,
                    "\(value.count) send(s) ended \(key): \(value.last.note ?? value.last.remedy.rawValue)",
                    fix: "see the timeline for each device; the remedy taken is in its 'remedy' field",
                    device: value.last.destination.stored)
            }
            if let stale = activity.staleDate, Double(stale) < now.timeIntervalSince1970,
                activity.state == .active || activity.state == .stale
            {
                finding(
                    "DT-021", .warning, "the stale date passed \(Int(now.timeIntervalSince1970) - Int(stale)) s ago",
                    fix: "send an update with a later staleDate, or end the activity")
            }
            let subscriptions = try tx.channelSubscriptions(app: appID, activityId: activityId)
            for (fingerprint, found) in deviceFindings(
                activity: activity, tokens: updateTokens + startTokens + androidTokens + subscriptions, app: app,
                now: now)
            {
                finding(found.trap, found.severity, found.message, fix: found.fix, device: fingerprint)
            }
            if pending > 0 {
                finding(
                    nil, .info, "\(pending) send(s) still queued for this activity",
                    fix: "wait, or look at /metrics droptrack_outbox_oldest_age_seconds if it grows")
            }
            var lastAccepted: [Fingerprint: Int64] = [:]
            for entry in timeline where (200..<300).contains(entry.status) {
                guard case .token(let fingerprint) = entry.destination else { continue }
                lastAccepted[fingerprint] = max(lastAccepted[fingerprint] ?? 0, entry.version)
            }
            let devices = (updateTokens + androidTokens + startTokens).map { token in
                let accepted = lastAccepted[token.fingerprint]
                let current = token.kind == .pushToStart ? accepted != nil : accepted == activity.version
                return Diagnosis.Device(
                    fingerprint: token.fingerprint, kind: token.kind, valid: token.isValid,
                    lastAcceptedVersion: accepted, upToDate: token.isValid && current)
            }
            return Diagnosis(
                activityId: activity.id, state: activity.state, version: activity.version,
                timestamp: activity.timestamp, findings: findings, devices: devices)
        }
    }
}
