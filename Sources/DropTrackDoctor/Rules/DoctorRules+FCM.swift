import DropTrackContract
import DropTrackCore
import DropTrackWire
import Foundation

/// Catalog group 7: FCM and Android 16 Live Updates, the message itself (DT-089 … DT-101); the project's side is in
/// DoctorRules+FCMProject.swift, the phone's in DoctorRules+Android.swift.
extension Doctor {
    /// The data keys that carry a Live Update's per-activity sequence (DT-097).
    static let orderingKeys = ["sequence", "seq", "version"]

    static let fcmRules: [DoctorRule] = [
        DoctorRule("DT-089", "FCM data values that aren't strings") { e, r in
            guard e.isFCM else { return }
            for (path, data) in [("message.data", e.message?["data"]), ("message.android.data", e.android?["data"])] {
                for (key, value) in (data?.objectValue ?? [:]).sorted(by: { $0.key < $1.key })
                where value.stringValue == nil {
                    r.error(
                        "\(path).\(key)",
                        "\"\(key)\" is a \(value.typeName); FCM data values are strings only (400 INVALID_ARGUMENT)",
                        fix: "encode every value as a string in the Android projection")
                }
            }
        },

        DoctorRule("DT-090", "Values encoded in a form the app's parser turns into defaults") { e, r in
            guard e.isFCM, let data = e.fcmData, let fields = e.stateContract?.schema.androidData else { return }
            for issue in ContractSchema.checkAndroid(data, against: fields) {
                let field = "message.data.\(issue.key)"
                switch issue.kind {
                case .unparsable(let problem):
                    r.error(
                        field, problem,
                        fix: "use one canonical string per type: '.' decimals, plain integers, \"true\"/\"false\"")
                case .unknownCase(let allowed):
                    r.error(
                        field,
                        "\"\(issue.key)\" is '\(data[issue.key]?.stringValue ?? "")'; the app knows \(allowed.joined(separator: ", "))",
                        fix: "send only values the app build parses")
                case .outOfRange(let bound):
                    r.warning(field, "\"\(issue.key)\" must be \(bound)", fix: "clamp values in the projection")
                default:
                    break
                }
            }
        },

        DoctorRule("DT-091", "Notification message instead of a data-only message") { e, r in
            guard e.isFCM else { return }
            for (path, value) in [
                ("message.notification", e.message?["notification"]),
                ("message.android.notification", e.android?["notification"]),
            ]
            where value != nil {
                r.error(
                    path,
                    "a notification payload goes straight to the tray when the app is in the background: no ongoing card, no promotion, and onMessageReceived never runs",
                    fix: "send data-only messages and let the app build the notification")
            }
        },

        DoctorRule("DT-092", "Data message missing the activity id, the event, or the full state") { e, r in
            guard e.isFCM else { return }
            switch e.parsedBody {
            case nil:
                r.error("body", "the body is empty", fix: "send {\"message\": {\"token\": …, \"data\": {…}}}")
                return
            case .failure(let error):
                r.error(
                    "body", "the body is not JSON (\(error)); FCM answers 400 and nothing is sent",
                    fix: "send a JSON object")
                return
            case .success:
                break
            }
            guard e.message != nil else {
                r.error(
                    "message", "the body has no \"message\" object; FCM answers 400 INVALID_ARGUMENT",
                    fix: "send {\"message\": {\"token\": …, \"data\": {…}}}")
                return
            }
            // A message carrying only an iOS Live Activity has no Android data (DT-105 checks it).
            if e.message?["apns"]?["live_activity_token"] != nil && e.fcmData == nil { return }
            guard let data = e.fcmData else {
                r.error(
                    "message.data", "no data: the app's messaging service has nothing to build a Live Update from",
                    fix: "send the activity id, the event and the full state in every message")
                return
            }
            if (data["activityId"]?.stringValue ?? "").isEmpty {
                r.error(
                    "message.data.activityId",
                    "no activityId: the service must drop the message (a guessed id makes a second card)",
                    fix: "send the activity id in every message")
            }
            if let event = data["event"] {
                if !["start", "update", "end"].contains(event.stringValue ?? "") {
                    r.error(
                        "message.data.event", "event must be start, update or end",
                        fix: "send event as start, update or end")
                }
            } else {
                r.error(
                    "message.data.event", "no event: the service cannot tell start, update and end apart",
                    fix: "send event in every message")
            }
            // The ordering key is DT-097's: a message without it is one mistake, reported once.
            let fields = e.stateContract?.schema.androidData ?? [:]
            let missing = fields.filter {
                $0.value.optional != true && data[$0.key] == nil
                    && !(["activityId", "event"] + Doctor.orderingKeys).contains($0.key)
            }
            for key in missing.keys.sorted() {
                r.error(
                    "message.data.\(key)",
                    "\"\(key)\" is missing: the service rebuilds the whole card from each message and cannot merge",
                    fix: "send the full state each time")
            }
        },

        DoctorRule("DT-093", "Reserved data keys") { e, r in
            guard e.isFCM else { return }
            r.adopt(e.fcmRequestErrors)
            for key in (e.fcmData ?? [:]).keys.sorted()
            where ["collapse_key", "priority", "time_to_live"].contains(key) {
                r.warning(
                    "message.data.\(key)", "\"\(key)\" is an FCM word; its value may be overwritten on the way",
                    fix: "give app keys a prefix that FCM does not use")
            }
        },

        DoctorRule("DT-094", "Normal priority for Live Update messages") { e, r in
            guard e.isFCM, e.fcmData != nil else { return }
            let priority = e.android?["priority"]?.stringValue?.lowercased()
            if priority != "high" {
                r.error(
                    "message.android.priority",
                    priority == nil
                        ? "no android.priority: FCM sends at normal priority, which Doze holds until the next maintenance window"
                        : "android.priority is \(priority!): Doze holds the update until the next maintenance window",
                    fix: "send Live Updates at android.priority high, each one posting a visible notification")
            }
        },

        DoctorRule("DT-095", "Collapse keys on progress updates") { e, r in
            guard e.isFCM, e.android?["collapse_key"] != nil else { return }
            r.warning(
                "message.android.collapse_key",
                "collapsible messages are throttled per device (a burst of 20, then one every 3 minutes), and a device keeps at most 4 collapse keys",
                fix: "send non-collapsible data messages with a short ttl")
        },

        DoctorRule("DT-096", "Default TTL (4 weeks) on time-sensitive updates") { e, r in
            guard e.isFCM, e.fcmData != nil else { return }
            r.adopt(e.fcmRequestErrors)
            guard let raw = e.android?["ttl"] else {
                r.warning(
                    "message.android.ttl",
                    "no android.ttl: FCM keeps the message up to 4 weeks, so a phone that reconnects shows a stale state",
                    fix: "set a short ttl for updates (0 when a late update is worthless)")
                return
            }
            guard let ttl = Examination.seconds(fromDuration: raw) else {
                r.error(
                    "message.android.ttl", "android.ttl must be a duration such as \"60s\"",
                    fix: "send ttl as \"<seconds>s\"")
                return
            }
            let limit = e.event == "update" ? (e.config?.updateTTLSeconds ?? 3600) : 86400
            if ttl > limit {
                r.warning(
                    "message.android.ttl",
                    "a ttl of \(Int(saturating: ttl)) s lets an outdated \(e.event ?? "message") arrive long after it stopped being true",
                    fix: "keep update ttl short (minutes); start and end may keep longer windows")
            }
        },

        DoctorRule("DT-097", "No ordering guarantee: an older update overwrites a newer one") { e, r in
            guard e.isFCM, let data = e.fcmData else { return }
            guard let key = Doctor.orderingKeys.first(where: { data[$0] != nil }) else {
                r.warning(
                    "message.data",
                    "no sequence number: FCM does not keep order, so an older update can overwrite a newer one",
                    fix: "add a per-activity sequence that only goes up, and have the app ignore older ones")
                return
            }
            if let sequence = data[key]?.stringValue.flatMap({ Int64($0) }), let last = e.activity?.lastSequence,
                sequence <= last
            {
                r.error(
                    "message.data.\(key)",
                    "\(key) \(sequence) is not above \(last), the newest already sent: it would show an older state",
                    fix: "recompute the state at send time and stamp it with the next sequence")
            }
        },

        DoctorRule("DT-098", "Message over 4096 bytes (2048 for topic messages)") { e, r in
            guard e.isFCM, let data = e.fcmData else { return }
            r.adopt(e.fcmRequestErrors)
            let limit = e.message?["topic"] != nil ? FCMLimits.topicDataBytes : FCMLimits.dataBytes
            let size = data.reduce(0) {
                $0 + $1.key.utf8.count + ($1.value.stringValue?.utf8.count ?? $1.value.serialized().count)
            }
            if size <= limit, size * 5 >= limit * 4 {
                r.warning(
                    "message.data", "the data map is \(size) bytes, over 80% of FCM's \(limit)",
                    fix: "trim the data map: keys and values both count")
            }
        },

        DoctorRule("DT-099", "Token from another Firebase project or package") { e, r in
            guard e.isFCM else { return }
            let project = e.config?.fcmProjectId ?? e.urlProject
            if let tokenProject = e.token?.firebaseProject, let project, tokenProject != project {
                r.error(
                    "token.firebaseProject",
                    "the token belongs to Firebase project \(tokenProject), the send goes to \(project) (403 SENDER_ID_MISMATCH)",
                    fix: "register every token with its project and send through that project")
            }
            if let configured = e.config?.fcmProjectId, let inURL = e.urlProject, configured != inURL {
                r.error(
                    ":path", "the URL names project \(inURL) but the server is configured for \(configured)",
                    fix: "build the send URL from the configured project id")
            }
            if let restricted = e.android?["restricted_package_name"]?.stringValue, let package = e.token?.package,
                restricted != package
            {
                r.error(
                    "message.android.restricted_package_name",
                    "restricted_package_name is \(restricted) but the token belongs to \(package) (400 INVALID_ARGUMENT)",
                    fix: "leave restricted_package_name out, or set it from the token's package")
            }
            if e.response?.fcmError == "SENDER_ID_MISMATCH" {
                r.error(
                    "response.fcmError", "SENDER_ID_MISMATCH: the token was issued for another Firebase project",
                    fix: "treat the token as unusable for this project; send through the project that issued it")
            }
        },

        DoctorRule("DT-100", "Device and project quotas, and misclassified 429s") { e, r in
            guard e.isFCM else { return }
            if let minute = e.history?.sendsToDeviceLastMinute, minute >= 240 {
                r.warning(
                    "history.sendsToDeviceLastMinute", "\(minute) messages to this device in a minute; FCM allows 240",
                    fix: "coalesce updates per device")
            }
            if let hour = e.history?.sendsToDeviceLastHour, hour >= 5000 {
                r.warning(
                    "history.sendsToDeviceLastHour", "\(hour) messages to this device in an hour; FCM allows 5,000",
                    fix: "coalesce updates per device")
            }
            if e.response?.status == 429 {
                let project = e.response?.fcmError == "RESOURCE_EXHAUSTED" || e.response?.fcmError == nil
                r.warning(
                    "response.status",
                    project
                        ? "429 without an FcmError is the project quota: every send is throttled, not only this device's"
                        : "429 QUOTA_EXCEEDED: this device (or topic) gets too many messages",
                    fix: project
                        ? "back off at least a minute for the whole project"
                        : "coalesce updates per device and honour Retry-After")
            }
        },

        DoctorRule("DT-101", "A Live Update that is never ended (no system time limit)") { e, r in
            guard e.isFCM, let activity = e.activity else { return }
            if activity.domainTerminal == true, e.event != "end" {
                r.warning(
                    "message.data.event",
                    "the order is finished but this message does not end the Live Update; Android never removes it by itself",
                    fix: "send event end when the domain object finishes")
            } else if let started = activity.startedAt, let now = e.now, !activity.isOver,
                now - Double(started) > 12 * 3600
            {
                r.warning(
                    "activity.startedAt",
                    "the Live Update has been ongoing for \(Int(saturating: (now - Double(started)) / 3600)) h; nothing on Android ends it",
                    fix: "always send an end, and alert on activities ongoing past their expected life")
            }
        },
    ]
}
