import DropTrackContract
import DropTrackModel
import DropTrackWire
import Foundation

/// Catalog group 1: the APNs request and its headers (DT-001 … DT-012).
extension Doctor {
    static let knownPushTypes: Set<String> = [
        "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity", "pushtotalk",
        "widgets", "controls",
    ]

    static let requestRules: [DoctorRule] = [
        DoctorRule("DT-001", "Live Activity topic lacks the .push-type.liveactivity suffix", scope: .request) { e, r in
            r.adopt(e.requestErrors)
        },

        DoctorRule("DT-002", "Suffix appended twice, or the configured bundle id already carries it", scope: .request) {
            e, r in
            let suffix = APNsLimits.liveActivityTopicSuffix
            if let topic = e.topic, topic.lowercased().components(separatedBy: suffix).count > 2 {
                r.error(
                    "apns-topic",
                    "apns-topic carries \(suffix) more than once; APNs answers TopicDisallowed or BadTopic",
                    fix: "store only the bare bundle id and let one function append the suffix")
            }
            if let bundle = e.config?.bundleId, bundle.lowercased().hasSuffix(suffix) {
                r.error(
                    "config.bundleId", "the configured bundle id already ends with \(suffix), so the suffix is doubled",
                    fix: "store only the bare bundle id and let one function append the suffix")
            }
        },

        DoctorRule("DT-003", "apns-topic missing or empty", scope: .request) { e, r in
            if let bundle = e.config?.bundleId, !isReverseDNS(bundle) {
                r.error(
                    "config.bundleId",
                    bundle.isEmpty
                        ? "the configured bundle id is empty, so every topic comes out empty or as the bare suffix"
                        : "the configured bundle id '\(bundle)' is not reverse-DNS shaped",
                    fix: "refuse to start without a bundle id like com.example.app")
            }
            guard e.isDeviceRoute, !e.embedded else { return }
            let topic = e.topic ?? ""
            if topic.isEmpty {
                r.error(
                    "apns-topic", "apns-topic is missing; APNs answers 400 MissingTopic",
                    fix: "set apns-topic on every device push: <bundle id>.push-type.liveactivity")
            } else if topic.hasPrefix(".") {
                r.error(
                    "apns-topic", "apns-topic '\(topic)' has no bundle id before the suffix (the bundle id was empty)",
                    fix: "refuse to start without a bundle id, and build the topic from it")
            } else if let bundle = e.config?.bundleId, !bundle.isEmpty, !topic.hasPrefix(bundle) {
                r.error(
                    "apns-topic", "apns-topic '\(topic)' does not start with the configured bundle id '\(bundle)'",
                    fix: "build the topic from the configured bundle id only")
            }
        },

        DoctorRule("DT-004", "apns-push-type missing or wrong for a Live Activity payload", scope: .request) { e, r in
            guard e.isAPNs, e.isDeviceRoute || e.isBroadcast else { return }
            let hasEvent = e.aps?["event"] != nil
            let laTopic = e.topic?.hasSuffix(APNsLimits.liveActivityTopicSuffix) == true
            guard let type = e.pushType else {
                if hasEvent || laTopic || e.isBroadcast {
                    r.error(
                        "apns-push-type",
                        "apns-push-type is missing; APNs does not infer it from the topic (400 MissingPushType, or the push is taken as an alert)",
                        fix: "send apns-push-type: liveactivity with every Live Activity push")
                }
                return
            }
            if !knownPushTypes.contains(type) {
                r.error(
                    "apns-push-type", "apns-push-type '\(type)' is not a push type APNs knows (400 InvalidPushType)",
                    fix: "send apns-push-type: liveactivity")
            } else if type != "liveactivity" && (hasEvent || laTopic) {
                r.error(
                    "apns-push-type",
                    "apns-push-type is '\(type)' but the \(hasEvent ? "payload has aps.event" : "topic is a Live Activity topic"); the activity never changes",
                    fix:
                        "derive push type and topic together from the operation: liveactivity for start, update and end"
                )
            }
        },

        DoctorRule("DT-005", "Activity driven by a background or plain alert push", scope: .request) { e, r in
            guard e.isAPNs, e.addressedToActivity, let aps = e.aps else { return }
            if aps["content-available"] != nil {
                r.error(
                    "aps.content-available",
                    "a content-available (background) push only asks to wake the app, which the system may delay or skip; it never updates the activity",
                    fix: "send activity changes as liveactivity pushes carrying the whole content-state")
            }
            // An alert beside an activity is fine when it goes to the device token; to the activity's
            // own token, or with the Live Activity topic, it is meant to move the card and cannot.
            let activityToken = e.token?.kind == .perActivity || e.token?.kind == .pushToStart
            let activityTopic = e.topic?.hasSuffix(APNsLimits.liveActivityTopicSuffix) == true
            if let type = e.pushType, type == "alert" || type == "background", aps["content-available"] == nil,
                activityToken || activityTopic
            {
                r.error(
                    "apns-push-type",
                    "this \(type) push is addressed to an activity, but only a liveactivity push reaches ActivityKit",
                    fix: "send activity changes as liveactivity pushes; keep ordinary notifications separate")
            }
            if e.pushType == "liveactivity", aps["alert"] != nil, aps["content-state"] == nil {
                r.error(
                    "aps.alert",
                    "this Live Activity push holds only an alert: a banner may show, the card stays the same",
                    fix: "send the content-state; use a separate alert push for ordinary notifications")
            }
        },

        DoctorRule("DT-006", "apns-priority not valid for the send kind", scope: .request) { e, r in
            guard e.isAPNs, !e.embedded, let text = e.header("apns-priority") else { return }
            if e.priority == nil {
                r.error(
                    "apns-priority", "apns-priority '\(text)' is not a number (400 BadPriority)",
                    fix: "take the priority from a fixed table: 5 or 10 (broadcasts also 1)")
            }
            r.adopt(e.requestErrors)
        },

        DoctorRule("DT-007", "apns-expiration malformed, or nonzero on a no-storage channel", scope: .request) { e, r in
            guard e.isAPNs, !e.embedded, let text = e.header("apns-expiration") else { return }
            guard let value = Int64(text.trimmingCharacters(in: .whitespaces)) else {
                r.error(
                    "apns-expiration", "apns-expiration '\(text)' is not whole Unix seconds (400 BadExpirationDate)",
                    fix: "send apns-expiration as whole Unix seconds, or 0 to try once")
                return
            }
            r.adopt(e.requestErrors)
            if value >= 100_000_000_000 {
                r.error(
                    "apns-expiration", "apns-expiration \(value) looks like milliseconds (400 BadExpirationDate)",
                    fix: "compute expirations in seconds: floor(millis / 1000)")
            } else if value > 0, let now = e.now, Double(value) <= now {
                r.warning(
                    "apns-expiration",
                    "apns-expiration is already past: APNs will not store the push if the phone is offline",
                    fix: "set apns-expiration to now plus the time the push stays useful")
            }
            if e.isBroadcast, value != 0, e.context.channel?.storagePolicy == .noMessageStored {
                r.error(
                    "apns-expiration",
                    "the channel stores no messages, so apns-expiration must be 0 (400 BadExpirationDate)",
                    fix: "read the channel's storage policy before broadcasting; send 0 for no-storage channels")
            }
        },

        DoctorRule("DT-008", "apns-expiration: 0 on start or end", .risk, scope: .request) { e, r in
            guard e.isAPNs, e.event == "start" || e.event == "end",
                e.header("apns-expiration")?.trimmingCharacters(in: .whitespaces) == "0"
            else { return }
            r.warning(
                "apns-expiration",
                "apns-expiration 0 means try once: a phone that is offline right now never \(e.isStart ? "starts" : "ends") the activity",
                fix: "give start and end a short storage window, e.g. now + 10 minutes")
        },

        DoctorRule(
            "DT-009", "Optional headers malformed (apns-id, apns-collapse-id, duplicated headers)", scope: .request
        ) {
            e, r in
            guard e.isAPNs, !e.embedded else { return }
            var counts: [String: Int] = [:]
            for header in e.push.headers { counts[header.name.lowercased(), default: 0] += 1 }
            for (name, count) in counts.sorted(by: { $0.key < $1.key }) where count > 1 {
                r.error(
                    name, "\(name) is sent \(count) times; APNs answers 400 DuplicateHeaders",
                    fix: "set each header in one place only")
            }
            r.adopt(e.requestErrors)
            if let original = e.history?.retryOfApnsId, e.header("apns-id") != original {
                r.warning(
                    "apns-id",
                    "this send retries an earlier one but \(e.header("apns-id") == nil ? "has no" : "carries a different") apns-id, so a duplicate cannot be recognised",
                    fix: "reuse the first attempt's apns-id on every retry")
            }
        },

        DoctorRule("DT-010", "Broadcast channel id missing or altered", scope: .request) { e, r in
            guard e.isAPNs, !e.embedded else { return }
            let needsChannel: Bool
            switch e.route {
            case .broadcast: needsChannel = true
            case .channels: needsChannel = e.push.method != "POST"
            default: needsChannel = false
            }
            guard needsChannel else { return }
            guard let channel = e.header("apns-channel-id") else {
                r.error(
                    "apns-channel-id", "apns-channel-id is missing (400 MissingChannelId)",
                    fix: "send the channel id, exactly as the create call returned it, in apns-channel-id")
                return
            }
            if let stored = e.context.channel?.id, stored != channel {
                r.error(
                    "apns-channel-id",
                    "apns-channel-id differs from the stored channel id (decoded, trimmed or re-encoded on the way); APNs answers BadChannelId",
                    fix: "store channel ids as opaque strings and send them byte for byte")
            }
            r.adopt(e.requestErrors)
        },

        DoctorRule("DT-011", "Broadcast or channel-management request built to the wrong shape", scope: .request) {
            e, r in
            guard e.isAPNs, !e.embedded else { return }
            let method = e.push.method.uppercased()
            switch e.route {
            case .unspecified:
                return
            case .unknown:
                r.error(
                    ":path",
                    "'\(e.safePath)' is not an APNs path (404 BadPath)",
                    fix: "use /3/device/<token>, /4/broadcasts/apps/<bundle id> or /1/apps/<bundle id>/channels")
                return
            case .device, .broadcast:
                if method != "POST" {
                    r.error(
                        ":method", "pushes are POST, not \(method) (405 MethodNotAllowed)", fix: "send pushes with POST"
                    )
                }
            case .channels(_, let extra):
                if let extra {
                    r.error(
                        ":path",
                        "the path goes on after /channels (\(extra.count) more characters): the channel id travels in apns-channel-id, not the path",
                        fix: "send the channel id in the apns-channel-id header; the path ends at /channels")
                }
                if !["POST", "GET", "DELETE"].contains(method) {
                    r.error(
                        ":method",
                        "channels take POST (create), GET (read) or DELETE, not \(method) (405 MethodNotAllowed)",
                        fix: "use POST, GET or DELETE")
                }
                if method == "POST" { checkChannelCreateBody(e, &r) }
            case .allChannels:
                if method != "GET" {
                    r.error(":method", "all-channels takes GET, not \(method)", fix: "list channels with GET")
                }
            }
            if case .broadcast(let bundle) = e.route {
                if bundle.hasSuffix(APNsLimits.liveActivityTopicSuffix) {
                    r.error(
                        ":path",
                        "the broadcast path carries \(APNsLimits.liveActivityTopicSuffix) (400 TopicDisallowed)",
                        fix: "the broadcast path takes the bare bundle id: /4/broadcasts/apps/<bundle id>")
                }
                if e.topic != nil {
                    r.warning(
                        "apns-topic", "a broadcast carries no apns-topic; the bare bundle id in the path names the app",
                        fix: "leave apns-topic out of broadcasts")
                }
            }
            if let host = e.push.host?.lowercased(), host.hasSuffix("push.apple.com") {
                let management = host.hasPrefix("api-manage-broadcast")
                if e.isChannelManagement && !management {
                    r.error(
                        ":authority",
                        "channel management goes to api-manage-broadcast[.sandbox].push.apple.com, not \(host)",
                        fix:
                            "send channel management to the management host on port 2196 (production) or 2195 (sandbox)"
                    )
                } else if !e.isChannelManagement && management {
                    r.error(
                        ":authority",
                        "\(host) serves channel management only; pushes go to api[.sandbox].push.apple.com",
                        fix: "send pushes and broadcasts to api.push.apple.com or api.sandbox.push.apple.com")
                } else if management, let port = e.push.port, let environment = e.push.hostEnvironment {
                    let expected = environment == .production ? 2196 : 2195
                    if port != expected {
                        r.error(
                            ":authority",
                            "channel management in \(environment.rawValue) listens on port \(expected), not \(port)",
                            fix: "use port 2196 in production and 2195 in sandbox")
                    }
                }
            }
        },

        DoctorRule("DT-012", "Sends lost on connection events without a recorded outcome") { e, r in
            if let lost = e.history?.sendsWithoutOutcome, lost > 0 {
                r.error(
                    "history.sendsWithoutOutcome",
                    "\(lost) accepted send job(s) have no outcome: lost on a GOAWAY, a reset or an idle close without anyone noticing",
                    fix:
                        "end every send job in exactly one outcome, and re-send streams a GOAWAY refused on a new connection"
                )
            }
            let transport = e.response?.transportError
            let reason = e.response?.reason
            if transport != nil || reason == "IdleTimeout" || reason == "Shutdown" {
                r.warning(
                    "response",
                    "the connection \(transport.map { "failed (\($0))" } ?? "closed (\(reason ?? ""))") under this send; it is lost unless it is sent again",
                    fix: "reconnect and send again, and record the outcome of the retry")
            }
        },
    ]

    /// A create body: `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}`.
    private static func checkChannelCreateBody(_ e: Examination, _ r: inout DoctorReport) {
        guard let body = e.json?.objectValue else {
            r.error(
                "body", "a channel create needs {\"message-storage-policy\": 0 or 1, \"push-type\": \"LiveActivity\"}",
                fix: "send the create body Apple documents")
            return
        }
        if !(body["message-storage-policy"]?.numberValue.map { $0 == 0 || $0 == 1 } ?? false) {
            r.error(
                "message-storage-policy", "message-storage-policy must be 0 (none stored) or 1 (most recent stored)",
                fix: "choose the storage policy when creating the channel")
        }
        if body["push-type"]?.stringValue != "LiveActivity" {
            r.error(
                "push-type", "a channel's push-type must be \"LiveActivity\"",
                fix: "send \"push-type\": \"LiveActivity\"")
        }
    }

    /// `com.example.app`: dot-separated labels of letters, digits and hyphens.
    static func isReverseDNS(_ bundle: String) -> Bool {
        let labels = bundle.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "-" }
        }
    }
}
