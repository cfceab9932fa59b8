import DropTrackContract
import DropTrackModel
import DropTrackWire
import Foundation

/// Catalog group 3: tokens and the activity's lifecycle (DT-034 … DT-049).
extension Doctor {
    static let tokenRules: [DoctorRule] = [
        DoctorRule("DT-034", "Token validation assumes 32-byte tokens or the wrong encoding", scope: .request) { e, r in
            guard e.isAPNs, !e.embedded, let token = e.deviceToken else { return }
            let decoded = token.removingPercentEncoding ?? token
            let hex = CharacterSet(charactersIn: "0123456789abcdefABCDEF")
            let isHex = !decoded.isEmpty && decoded.unicodeScalars.allSatisfy { hex.contains($0) }
            if decoded.isEmpty {
                r.error(
                    "path", "the path has no device token (400 MissingDeviceToken)",
                    fix: "put the hex token after /3/device/")
            } else if decoded.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" }) {
                r.error(
                    "path",
                    "the token has spaces or angle brackets (the old NSData description form); APNs answers BadDeviceToken",
                    fix: "normalize tokens at registration: strip spaces and brackets, lowercase the hex")
            } else if !isHex, decoded.count % 4 == 0,
                decoded.unicodeScalars.allSatisfy({
                    CharacterSet.alphanumerics.contains($0) || "+/=".unicodeScalars.contains($0)
                })
            {
                r.error(
                    "path", "the token looks like base64; APNs takes the raw bytes as hex (400 BadDeviceToken)",
                    fix: "hex-encode the token's raw bytes (%02x) on the device")
            } else if !isHex || decoded.count % 2 != 0 {
                r.adopt(e.requestErrors)
            } else if decoded.count < 64 {
                r.error(
                    "path",
                    "the token has \(decoded.count) hex digits; APNs tokens are at least 32 bytes (64 hex digits)",
                    fix: "send the whole token; never truncate or length-check it against a fixed size")
            } else if decoded != decoded.lowercased() {
                r.warning(
                    "path", "the token has uppercase hex digits; a token stored in two spellings becomes two devices",
                    fix: "normalize tokens to lowercase hex at registration")
            }
        },

        DoctorRule("DT-035", "Wrong token kind for the operation") { e, r in
            guard let kind = e.token?.kind else { return }
            if e.isFCM {
                if kind != .fcm {
                    r.error(
                        "token.kind", "an FCM message goes to an FCM registration token, not a \(kind.rawValue) token",
                        fix: "store the kind with every token, and select tokens by operation")
                }
                return
            }
            guard !e.isBroadcast, !e.isChannelManagement, !e.embedded else { return }
            if kind == .fcm {
                r.error(
                    "token.kind", "an APNs push to an FCM registration token (400 BadDeviceToken)",
                    fix: "store the kind with every token, and select tokens by operation")
            } else if e.isLiveActivity && e.isStart {
                if kind != .pushToStart {
                    r.error(
                        "token.kind",
                        "a start goes to a push-to-start token, not a \(kind.rawValue) token (DeviceTokenNotForTopic, or 200 and nothing)",
                        fix: "send starts to the push-to-start token registered for the attributes type")
                } else if let type = e.token?.attributesType, let sent = e.aps?["attributes-type"]?.stringValue,
                    type != sent, e.activityKitType(type) != sent
                {
                    r.error(
                        "aps.attributes-type",
                        "this push-to-start token starts \(type) activities, not \(sent): push-to-start tokens are per attributes type",
                        fix: "select the push-to-start token registered for the attributes type you start")
                }
            } else if e.isLiveActivity {
                if kind != .perActivity {
                    r.error(
                        "token.kind",
                        "an \(e.event ?? "update") goes to the activity's own update token, not a \(kind.rawValue) token; APNs answers 200 and nothing changes",
                        fix: "send updates and ends to the per-activity token (or the activity's channel)")
                }
            } else if kind == .perActivity || kind == .pushToStart {
                r.error(
                    "token.kind",
                    "an ordinary notification goes to the app's device token, not a \(kind.rawValue) token",
                    fix: "send alerts to the device token from registerForRemoteNotifications")
            }
        },

        DoctorRule("DT-036", "Per-activity token from a different (earlier) activity") { e, r in
            guard let token = e.token, token.kind == nil || token.kind == .perActivity, let activity = e.activity else {
                return
            }
            if let owner = token.activityId, let id = activity.id, owner != id {
                r.error(
                    "token.activityId",
                    "this update token belongs to activity \(owner), not \(id): nothing on screen changes",
                    fix: "key per-activity tokens by activity id and store every new one")
            } else if let registered = token.registeredAt, let started = activity.startedAt, registered < started {
                r.error(
                    "token.registeredAt",
                    "this update token was registered before the activity started, so it comes from an earlier run",
                    fix: "key per-activity tokens by activity id and store every new one")
            }
        },

        DoctorRule("DT-037", "Sending to an ended, dismissed or timed-out activity") { e, r in
            guard e.isAPNs else { return }
            r.adopt(e.lintFindings)
            guard e.isLiveActivity, e.isUpdateOrEnd, let activity = e.activity, !activity.isOver,
                let started = activity.startedAt, let now = e.now
            else { return }
            let lifetime = e.config?.activityLifetimeSeconds ?? 8 * 3600
            if now > Double(started) + lifetime {
                r.error(
                    "activity.startedAt",
                    "the activity started \(Int(saturating: (now - Double(started)) / 3600)) h ago; the system ends activities after \(Int(saturating: lifetime / 3600)) h and ignores later pushes",
                    fix: "treat the activity as ended and mark its tokens terminal")
            }
        },

        DoctorRule("DT-038", "Superseded token still used after rotation") { e, r in
            guard e.token?.supersededBy != nil else { return }
            r.error(
                "token.supersededBy",
                "this token was replaced by a newer one from the same device; the old one answers 410, BadDeviceToken or nothing",
                fix: "the latest emission wins: never select a superseded token")
        },

        DoctorRule("DT-039", "Push-to-start accepted (200) but no activity appears", .risk) { e, r in
            guard !e.isFCM, let activity = e.activity, let accepted = activity.startAcceptedAt,
                activity.startConfirmedAt == nil, activity.tokenReceivedAt == nil, let now = e.now
            else { return }
            let timeout = e.config?.confirmationTimeoutSeconds ?? 60
            guard now - Double(accepted) > timeout else { return }
            var causes: [String] = []
            if e.device?.areActivitiesEnabled == false { causes.append("Live Activities are off (DT-048)") }
            if let seen = e.token?.lastSeenAt, now - Double(seen) > 7 * 86400 {
                causes.append(
                    "the push-to-start token was last seen \(Int(saturating: (now - Double(seen)) / 86400)) days ago")
            }
            if let running = e.device?.activeActivities, running >= (e.config?.maxActivitiesPerDevice ?? 5) {
                causes.append("the device already runs \(running) activities (DT-057)")
            }
            causes.append("the user force-quit the app since the token was issued")
            r.warning(
                "activity.startAcceptedAt",
                "APNs accepted the start \(Int(saturating: now - Double(accepted))) s ago and the app never reported the activity; likely: \(causes.joined(separator: "; "))",
                fix:
                    "refresh push-to-start tokens on every launch; if starts keep failing, ask the user to open the app once"
            )
        },

        DoctorRule("DT-040", "No push-to-start token until the app has started an activity", .risk) { e, r in
            guard !e.isFCM, let launches = e.device?.launchesWithoutPushToStartToken, launches >= 3,
                e.device?.areActivitiesEnabled != false
            else { return }
            if let version = e.osMajorMinor, version.major < 17 || (version.major == 17 && version.minor < 2) { return }
            r.warning(
                "device.launchesWithoutPushToStartToken",
                "the app launched \(launches) times with Live Activities on and never reported a push-to-start token, so remote starts are impossible",
                fix: "subscribe to pushToStartTokenUpdates at launch and also read pushToStartToken directly")
        },

        DoctorRule("DT-041", "The per-activity token of a push-started activity never reaches the backend", .risk) {
            e, r in
            guard !e.isFCM, let activity = e.activity else { return }
            if let confirmed = activity.startConfirmedAt, activity.tokenReceivedAt == nil, let now = e.now,
                now - Double(confirmed) > (e.config?.confirmationTimeoutSeconds ?? 60)
            {
                r.warning(
                    "activity.tokenReceivedAt",
                    "the activity runs on the device since \(Int(saturating: now - Double(confirmed))) s, but its update token never arrived: updates and end cannot be sent",
                    fix:
                        "observe Activity.activityUpdates and each activity's pushTokenUpdates at launch and in the background"
                )
            }
            if e.isStart, activity.state == .pendingToken {
                r.warning(
                    "aps.event",
                    "a start for an activity that is waiting for its update token: starting again to update it makes a second card",
                    fix: "wait for the update token; never start again as a way to update")
            }
        },

        DoctorRule("DT-042", "Updates sent before the per-activity token exists") { e, r in
            guard e.isAPNs, e.isLiveActivity, e.isUpdateOrEnd,
                let state = e.activity?.state, state == .pendingToken || state == .pendingStart
            else { return }
            r.error(
                "activity.state",
                "the activity is \(state.rawValue): there is no update token yet, so this \(e.event ?? "update") reaches nothing",
                fix:
                    "model waiting for the token as a state: queue the newest update and send it when the token arrives"
            )
        },

        DoctorRule("DT-043", "Duplicate starts from retries or parallel workers") { e, r in
            guard e.isAPNs, e.isStart, let activity = e.activity, !activity.isOver else { return }
            let accepted = e.history?.startsAccepted ?? 0
            if accepted > 0 || [.active, .stale].contains(activity.state) {
                r.error(
                    "aps.event",
                    "this activity \(accepted > 0 ? "already got \(accepted) accepted start(s)" : "is already \(activity.state?.rawValue ?? "running")"); another start puts a second card on the Lock Screen",
                    fix: "check and set a startedAt stamp atomically before sending, and reuse the apns-id on retries")
            }
        },

        DoctorRule("DT-044", "One token per user instead of per device and activity") { e, r in
            if let devices = e.activity?.deviceCount, let tokens = e.activity?.liveTokenCount, tokens < devices {
                r.error(
                    "activity.liveTokenCount",
                    "the activity runs on \(devices) devices but has \(tokens) live update token(s): the other cards freeze",
                    fix: "keep tokens per (device, kind, attributes type or activity) and fan updates out to each")
            }
            if let token = e.token, token.deviceId == nil, token.userId != nil, token.kind != .fcm {
                r.warning(
                    "token.deviceId", "the token is registered per user, with no device: a second device overwrites it",
                    fix: "register tokens per device, keyed by (device, kind, attributes type or activity)")
            }
        },

        DoctorRule("DT-045", "No backend id inside the activity, so tokens can't be matched") { e, r in
            guard e.isAPNs, let key = e.stateContract?.schema.correlationKey else { return }
            if e.isLiveActivity, e.isStart, let attributes = e.aps?["attributes"]?.objectValue {
                let value = attributes[key]
                if value == nil || value == .null || value?.stringValue == "" {
                    r.error(
                        "aps.attributes.\(key)",
                        "the start carries no \(key), so the update token the app reports cannot be matched to the order",
                        fix: "put the domain id into attributes, and have the app report it with every token")
                }
            }
            // A token registered for its activity is matched by that id: the correlation id is
            // only needed when the app could not say which activity the token belongs to.
            if let token = e.token, token.kind == .perActivity, token.correlationId == nil, token.activityId == nil {
                r.warning(
                    "token.correlationId", "the update token was registered without the \(key) it belongs to",
                    fix: "have the app report the correlation id with every token")
            }
        },

        DoctorRule("DT-046", "Deleting tokens on BadDeviceToken when the environment is wrong") { e, r in
            guard e.isAPNs, e.response?.reason == "BadDeviceToken" else { return }
            let unknown = e.token?.environment == nil
            let neverWorked = e.token?.successCount == 0
            guard unknown || neverWorked else { return }
            r.warning(
                "response.reason",
                "BadDeviceToken for a token \(unknown ? "of unknown environment" : "that never succeeded"): it may belong to the other environment, not be dead",
                fix: "delete a token only after its environment is confirmed; try the other host once first")
        },

        DoctorRule("DT-047", "410 responses mishandled") { e, r in
            let goneReasons = ["unregistered", "expiredtoken"]
            if e.isAPNs, let dead = e.token?.dead, goneReasons.contains(dead.reason.lowercased()) {
                r.error(
                    "token.dead", "the token answered 410 \(dead.reason) and is dead; sends to it slow the fan-out",
                    fix: "map responses to token states in one place and never select dead tokens")
            }
            guard e.isAPNs, e.response?.status == 410 else { return }
            if let invalidAt = e.response?.timestamp, let registered = e.token?.registeredAt,
                registered * 1000 > invalidAt
            {
                r.warning(
                    "response.timestamp",
                    "the 410 says the token died before it was registered again: the current registration is valid",
                    fix: "mark a token dead on 410 only when it was not registered after the 410's timestamp")
            } else {
                r.info(
                    "response.status",
                    "410 \(e.response?.reason ?? ""): the token is dead; stop sending and end its activity",
                    fix: "mark the token dead and its activity ended")
            }
        },

        DoctorRule("DT-048", "The user turned Live Activities off") { e, r in
            guard e.isAPNs, e.isLiveActivity, e.device?.areActivitiesEnabled == false else { return }
            r.add(
                e.isStart ? .error : .warning, "device.areActivitiesEnabled",
                "the user turned Live Activities off for the app: APNs answers 200 and nothing shows",
                fix: "skip starts while the flag is off, and fall back to an ordinary notification")
        },

        DoctorRule("DT-049", "A finished domain object whose activity is never ended") { e, r in
            guard !e.isFCM, let activity = e.activity, activity.domainTerminal == true, !activity.isOver,
                e.event != "end", let since = activity.terminalSince, let now = e.now
            else { return }
            let limit = e.config?.endAfterTerminalSeconds ?? 1800
            guard now - Double(since) > limit else { return }
            r.warning(
                "activity.domainTerminal",
                "the order finished \(Int(saturating: (now - Double(since)) / 60)) min ago and its activity was never ended; the card holds the Dynamic Island and a slot",
                fix: "schedule an end with a chosen dismissal-date when the domain object finishes")
        },
    ]
}
