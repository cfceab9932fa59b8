// ActivityKit's rules on the simulated iPhone: what a push, a broadcast or a push-to-start does to the
// phone's state, and why a push is dropped. Pure functions of `State`; the class applies them under its lock.
import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackWire
import Foundation
import Synchronization

extension IPhoneSimulator {
    /// A broadcast reaches every activity listening on its channel; each applies or drops it alone.
    static func applyBroadcast(
        _ state: inout State, channelID: String, payload: [UInt8], priority: Int, now: Date
    ) {
        let ids = state.order.filter { state.activities[$0]?.channelID == channelID }
        guard !ids.isEmpty else { return }
        state.received += 1
        guard payload.count <= APNsLimits.broadcastPayloadBytes,
            let document = try? JSONValue.parse(bytes: payload), let aps = document["aps"]?.objectValue
        else {
            state.drops.append(
                IPhoneDrop(
                    at: now, token: "channel:\(channelID)", event: "-", activityId: nil, trap: "DT-024",
                    reason: "the broadcast is not a JSON 'aps' payload within 5120 bytes"))
            return
        }
        let event = aps["event"]?.stringValue ?? "-"
        let timestamp = aps["timestamp"]?.numberValue.map { Int64(saturating: $0) }
        for id in ids {
            if case .dropped(let event, let activity, let trap, let reason) = Self.update(
                &state, id: id, aps: aps, event: event, timestamp: timestamp, priority: priority, now: now)
            {
                state.drops.append(
                    IPhoneDrop(
                        at: now, token: "channel:\(channelID)", event: event, activityId: activity, trap: trap,
                        reason: reason))
            }
        }
    }

    /// What a push did.
    enum Outcome {
        case applied
        case issued(TokenEvent)
        case dropped(event: String, activity: String?, trap: String?, reason: String)
    }

    static func newToken(bytes: Int) -> DeviceToken {
        DeviceToken(String(hexEncoding: (0..<bytes).map { _ in UInt8.random(in: 0...255) }))
    }

    static func drop(_ event: String, _ activity: String?, _ trap: String?, _ reason: String) -> Outcome {
        .dropped(event: event, activity: activity, trap: trap, reason: reason)
    }

    static func apply(_ state: inout State, token: DeviceToken, payload: [UInt8], priority: Int, now: Date)
        -> Outcome
    {
        guard payload.count <= APNsLimits.devicePayloadBytes else {
            return drop("-", nil, "DT-024", "the push is \(payload.count) bytes; ActivityKit drops pushes over 4096")
        }
        guard let document = try? JSONValue.parse(bytes: payload), let aps = document["aps"]?.objectValue else {
            return drop("-", nil, nil, "the payload is not JSON with an 'aps' object")
        }
        let event = aps["event"]?.stringValue ?? "-"
        let timestamp = aps["timestamp"]?.numberValue.map { Int64(saturating: $0) }
        if let type = state.pushToStartTokens.first(where: { $0.value == token })?.key {
            guard event == "start" else {
                return drop(event, nil, nil, "a push-to-start token only takes 'start' events, not '\(event)'")
            }
            return start(&state, type: type, aps: aps, timestamp: timestamp, now: now)
        }
        guard let id = state.activities.first(where: { $0.value.updateToken == token })?.key else {
            return drop(event, nil, "DT-037", "no activity on this phone has this token (ended or never started)")
        }
        return update(&state, id: id, aps: aps, event: event, timestamp: timestamp, priority: priority, now: now)
    }

    /// An update or end for one activity, by its token or its channel.
    static func update(
        _ state: inout State, id: String, aps: [String: JSONValue], event: String, timestamp: Int64?, priority: Int,
        now: Date
    ) -> Outcome {
        guard var activity = state.activities[id] else { return .applied }
        switch activity.phase(at: now) {
        case "ended", "dismissed":
            return drop(event, id, "DT-037", "the activity has ended; ActivityKit ignores pushes after the end")
        default: break
        }
        guard event == "update" || event == "end" else {
            return drop(event, id, nil, "an update token takes 'update' or 'end', not '\(event)'")
        }
        guard let timestamp else { return drop(event, id, "DT-019", "no 'timestamp': ActivityKit cannot order it") }
        if let local = activity.localUpdateTimestamp, timestamp <= local {
            return drop(
                event, id, "DT-081",
                "timestamp \(timestamp) is not newer than the app's local update stamped \(local); local and push updates share one order, so the push is ignored"
            )
        }
        guard timestamp > activity.timestamp else {
            return drop(
                event, id, "DT-020",
                "timestamp \(timestamp) is not newer than \(activity.timestamp), already applied; the update is ignored"
            )
        }
        guard let stateValue = aps["content-state"] else {
            return drop(event, id, "DT-013", "no 'content-state': nothing to show")
        }
        if let problem = decodeProblem(stateValue, type: activity.attributesType) {
            return drop(event, id, problem.trap, "the content-state does not decode: \(problem.reason)")
        }
        if priority == 10 && event == "update" {
            let recent = activity.priority10Times.filter { now.timeIntervalSince($0) < 3600 }
            guard recent.count < state.settings.effectiveBudget else {
                return drop(
                    event, id, "DT-050",
                    "priority-10 budget spent (\(recent.count) in the last hour); the system holds the update back")
            }
            activity.priority10Times = recent + [now]
        }
        activity.contentState = stateValue
        activity.timestamp = timestamp
        activity.localUpdateTimestamp = nil
        if let stale = aps["stale-date"]?.numberValue { activity.staleDate = Date(timeIntervalSince1970: stale) }
        if let score = aps["relevance-score"]?.numberValue { activity.relevanceScore = score }
        if let alert = aps["alert"] { activity.lastAlert = alertText(alert) }
        if event == "end" {
            activity.endedAt = now
            if let dismissal = aps["dismissal-date"]?.numberValue {
                activity.dismissAt = max(now, Date(timeIntervalSince1970: dismissal))
            } else {
                activity.dismissAt = now.addingTimeInterval(defaultDismissalSeconds)
            }
        }
        state.activities[id] = activity
        return .applied
    }

    static func start(
        _ state: inout State, type: String, aps: [String: JSONValue], timestamp: Int64?, now: Date
    ) -> Outcome {
        guard state.settings.liveActivitiesEnabled else {
            return drop(
                "start", nil, "DT-048", "Live Activities are off for this app (areActivitiesEnabled() is false)")
        }
        guard state.settings.osVersion >= 17 else {
            return drop("start", nil, nil, "push-to-start needs iOS 17.2 or later")
        }
        guard aps["attributes-type"]?.stringValue == type else {
            return drop(
                "start", nil, "DT-026",
                "'attributes-type' is '\(aps["attributes-type"]?.stringValue ?? "missing")', not '\(type)' as this token was issued for"
            )
        }
        guard let attributes = aps["attributes"], attributes.objectValue != nil else {
            return drop("start", nil, "DT-026", "no 'attributes': the activity cannot be created")
        }
        guard aps["alert"] != nil else {
            return drop("start", nil, "DT-025", "a start without 'alert' is accepted by APNs and never shown")
        }
        guard let contentState = aps["content-state"] else {
            return drop("start", nil, "DT-013", "a start without 'content-state' cannot render")
        }
        if let problem = decodeAttributesProblem(attributes, type: type) {
            return drop("start", nil, "DT-013", "the attributes do not decode: \(problem)")
        }
        if let problem = decodeProblem(contentState, type: type) {
            return drop("start", nil, problem.trap, "the content-state does not decode: \(problem.reason)")
        }
        let id = "activity-\(state.nextActivity)"
        state.nextActivity += 1
        // iOS 18 joins the channel and issues no update token; older versions ignore the key.
        let channel = state.settings.osVersion >= 18 ? aps["input-push-channel"]?.stringValue : nil
        let activity = SimulatedActivity(
            id: id, attributesType: type, attributes: attributes, contentState: contentState,
            updateToken: channel == nil ? newToken(bytes: 80) : DeviceToken(""), channelID: channel,
            timestamp: timestamp ?? Int64(now.timeIntervalSince1970), startedAt: now,
            staleDate: aps["stale-date"]?.numberValue.map { Date(timeIntervalSince1970: $0) },
            relevanceScore: aps["relevance-score"]?.numberValue, endedAt: nil, dismissAt: nil,
            lastAlert: aps["alert"].flatMap(alertText), priority10Times: [])
        state.activities[id] = activity
        state.order.append(id)
        if channel != nil { return .applied }
        return .issued(
            .activity(activityID: id, attributesType: type, attributes: attributes, token: activity.updateToken))
    }

    /// Why ActivityKit's decoder would refuse (or misread) a content-state, or nil.
    static func decodeProblem(_ value: JSONValue, type: String) -> (trap: String, reason: String)? {
        if type == ExpoWidgetsAttributes.typeName {
            // expo-widgets decodes {name, props}; other keys are ignored, so a bare state shows nothing.
            do {
                _ = try LiveActivityJSON.decode(ExpoWidgetsAttributes.ContentState.self, from: value.encoded())
                return nil
            } catch {
                return ("DT-029", "not expo-widgets' {name, props}: \(error)")
            }
        }
        guard type == DeliveryAttributes.typeName else {
            return value.objectValue == nil ? ("DT-013", "not an object") : nil
        }
        do {
            _ = try LiveActivityJSON.decode(DeliveryAttributes.ContentState.self, from: value.encoded())
        } catch {
            return ("DT-013", "\(error)")
        }
        if let eta = value["eta"]?.numberValue, eta > 1.25e9 {
            return (
                "DT-017", "'eta' is \(JSONInteger.text(eta)): a Unix time read as seconds since 2001, 31 years ahead"
            )
        }
        return nil
    }

    static func decodeAttributesProblem(_ value: JSONValue, type: String) -> String? {
        do {
            switch type {
            case DeliveryAttributes.typeName:
                _ = try LiveActivityJSON.decode(DeliveryAttributes.self, from: value.encoded())
            case ExpoWidgetsAttributes.typeName:
                _ = try LiveActivityJSON.decode(ExpoWidgetsAttributes.self, from: value.encoded())
            default: return nil
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    static func alertText(_ alert: JSONValue) -> String? {
        if let text = alert.stringValue { return text }
        let title = alert["title"]?.stringValue ?? alert["title"]?["loc-key"]?.stringValue
        let body = alert["body"]?.stringValue ?? alert["body"]?["loc-key"]?.stringValue
        return [title, body].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
    }
}
