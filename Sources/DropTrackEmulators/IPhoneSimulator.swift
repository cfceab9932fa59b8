import DropTrackContract
import DropTrackCore
import DropTrackWire
import Foundation
import Synchronization

/// A simulated iPhone applying ActivityKit's rules to the pushes APNs hands it: push-to-start
/// creates an activity (decoded with the contract types) and issues an update token; updates older
/// than the one applied, undecodable content-state, oversize pushes and priority-10 updates over the
/// budget are dropped with a reason; `stale-date`, dismissal policies and the 8-hour limit apply.
/// The app's local updates join the same timestamp order (DT-081).
/// The app's part (registering tokens with the server) is the `onToken` callback, or `DropTrackLive`
/// itself: `changes()` streams tokens and phase changes as ActivityKit announces them, and
/// `liveActivityHost()` (IPhoneSimulator+LiveActivityHost.swift) makes the phone a `LiveActivityHost`.
public final class IPhoneSimulator: Sendable {
    /// iOS ends an activity after 8 hours.
    public static let maximumActiveSeconds: TimeInterval = 8 * 3600
    /// An ended activity stays on the Lock Screen this long by default.
    public static let defaultDismissalSeconds: TimeInterval = 4 * 3600

    /// A token the app reports to its server: push-to-start (per attributes type) or the update
    /// token of a new activity.
    public enum TokenEvent: Sendable, Equatable {
        case pushToStart(attributesType: String, token: String)
        case activity(activityID: String, attributesType: String, attributes: JSONValue, token: String)
    }

    struct State {
        var settings: IPhoneSettings
        var pushToStartTokens: [String: String] = [:]
        var activities: [String: SimulatedActivity] = [:]
        var order: [String] = []
        var drops: [IPhoneDrop] = []
        var received = 0
        var nextActivity = 1
    }

    /// What ActivityKit tells an app observing the phone (the `LiveActivityHost` conformance).
    public enum Change: Sendable, Equatable {
        /// A token issued: push-to-start, a new activity's, or a rotation.
        case token(TokenEvent)
        /// An activity's phase changed (`active`, `stale`, `ended`, `dismissed`).
        case phase(activityID: String, phase: String)
    }

    /// The device id it registers with.
    public let deviceID: String
    private let clock: any WallClock
    private let state: Mutex<State>
    private let onToken: @Sendable (TokenEvent) -> Void
    private let watchers = Mutex<[UUID: AsyncStream<Change>.Continuation]>([:])

    /// A phone with a push-to-start token for each of `attributesTypes`, reported through `onToken`.
    public init(
        deviceID: String, attributesTypes: [String] = [DeliveryAttributes.typeName], settings: IPhoneSettings = .init(),
        clock: any WallClock = SystemWallClock(), onToken: @escaping @Sendable (TokenEvent) -> Void = { _ in }
    ) {
        self.deviceID = deviceID
        self.clock = clock
        self.onToken = onToken
        var initial = State(settings: settings)
        for type in attributesTypes { initial.pushToStartTokens[type] = Self.newToken(bytes: 32) }
        state = Mutex(initial)
    }

    /// Every change from now on, for as long as the stream is kept.
    public func changes() -> AsyncStream<Change> {
        let (stream, continuation) = AsyncStream.makeStream(of: Change.self)
        let key = UUID()
        watchers.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.watchers.withLock { $0.removeValue(forKey: key) } }
        return stream
    }

    /// ActivityKit issued a token: the `onToken` callback and the `changes()` streams hear of it.
    private func issue(_ event: TokenEvent) {
        onToken(event)
        publish(.token(event))
    }

    private func publish(_ change: Change) {
        for continuation in watchers.withLock({ Array($0.values) }) { continuation.yield(change) }
    }

    /// Runs `body` and returns, besides its result, the phases it changed.
    private static func phaseChanges<Result>(
        _ state: inout State, now: Date, _ body: (inout State) -> Result
    ) -> (Result, [Change]) {
        let before = state.activities.mapValues { $0.phase(at: now) }
        let result = body(&state)
        let changes = state.order.compactMap { id -> Change? in
            guard let phase = state.activities[id]?.phase(at: now), before[id] != nil, before[id] != phase else {
                return nil
            }
            return .phase(activityID: id, phase: phase)
        }
        return (result, changes)
    }

    /// The app ends an activity at once (`Activity.end(_:dismissalPolicy: .immediate)`).
    public func endLocally(activityID: String) { dismiss(activityID: activityID) }

    /// The person swipes the activity away (or the app ends it at once): it is dismissed, and
    /// ActivityKit says so to the app.
    public func dismiss(activityID: String) {
        let now = clock.now()
        let changes = state.withLock { state in
            Self.phaseChanges(&state, now: now) { state in
                guard var activity = state.activities[activityID], activity.phase(at: now) != "dismissed" else {
                    return
                }
                activity.endedAt = activity.endedAt ?? now
                activity.dismissAt = now
                state.activities[activityID] = activity
            }.1
        }
        for change in changes { publish(change) }
    }

    /// A fresh start for a demo (its Reset): every activity is dismissed, and ActivityKit says so to the
    /// app; the drops and the count of pushes received are forgotten. Tokens and settings stay, as on a
    /// phone whose user cleared the Lock Screen.
    public func reset() {
        let now = clock.now()
        let changes = state.withLock { state in
            Self.phaseChanges(&state, now: now) { state in
                for id in state.order {
                    guard var activity = state.activities[id], activity.phase(at: now) != "dismissed" else { continue }
                    activity.endedAt = activity.endedAt ?? now
                    activity.dismissAt = now
                    state.activities[id] = activity
                }
                state.drops = []
                state.received = 0
            }.1
        }
        for change in changes { publish(change) }
    }

    /// The phone's clock, by which activities go stale, end and leave the Lock Screen.
    public var now: Date { clock.now() }

    /// The push-to-start token of each attributes type.
    public var pushToStartTokensByType: [String: String] { state.withLock { $0.pushToStartTokens } }

    /// Reports the push-to-start tokens, as the app does at launch.
    public func registerPushToStartTokens() {
        for (type, token) in state.withLock({ $0.pushToStartTokens }).sorted(by: { $0.key < $1.key }) {
            onToken(.pushToStart(attributesType: type, token: token))
        }
    }

    /// Reports the update token of every activity that has one again, as the app does when it has
    /// news for the server (a settings switch changed).
    public func reportUpdateTokens() {
        let now = clock.now()
        let events: [TokenEvent] = state.withLock { state in
            state.order.compactMap { id in
                // A dismissed activity is gone from `Activity.activities`; the app no longer knows it.
                guard let activity = state.activities[id], !activity.updateToken.isEmpty,
                    activity.phase(at: now) != "dismissed"
                else { return nil }
                return .activity(
                    activityID: id, attributesType: activity.attributesType, attributes: activity.attributes,
                    token: activity.updateToken)
            }
        }
        for event in events { onToken(event) }
    }

    /// Every token this phone answers to: push-to-start and activity update tokens.
    public var tokens: Set<String> {
        state.withLock { state in
            Set(state.pushToStartTokens.values).union(state.activities.values.map(\.updateToken).filter { !$0.isEmpty })
        }
    }

    /// The push-to-start token for an attributes type.
    public func pushToStartToken(for attributesType: String) -> String? {
        state.withLock { $0.pushToStartTokens[attributesType] }
    }

    public var settings: IPhoneSettings { state.withLock { $0.settings } }

    /// The user flips a switch.
    public func updateSettings(_ change: (inout IPhoneSettings) -> Void) { state.withLock { change(&$0.settings) } }

    /// Activities in the order they started, dismissed ones included.
    public var activities: [SimulatedActivity] {
        state.withLock { state in state.order.compactMap { state.activities[$0] } }
    }

    /// Pushes dropped, with reasons.
    public var drops: [IPhoneDrop] { state.withLock { $0.drops } }

    /// Pushes received (applied or dropped).
    public var received: Int { state.withLock { $0.received } }

    /// ActivityKit issues a new update token for an activity (token rotation); reported through `onToken`.
    public func rotateToken(activityID: String) {
        let event: TokenEvent? = state.withLock { state in
            guard var activity = state.activities[activityID] else { return nil }
            activity.updateToken = Self.newToken(bytes: 80)
            state.activities[activityID] = activity
            return .activity(
                activityID: activityID, attributesType: activity.attributesType, attributes: activity.attributes,
                token: activity.updateToken)
        }
        if let event { issue(event) }
    }

    /// One push APNs delivered to `token`.
    public func receive(token: String, payload: [UInt8], priority: Int) {
        let now = clock.now()
        let token = token.lowercased()
        let (issued, phases): (TokenEvent?, [Change]) = state.withLock { state in
            state.received += 1
            return Self.phaseChanges(&state, now: now) { state in
                switch Self.apply(&state, token: token, payload: payload, priority: priority, now: now) {
                case .applied: return nil
                case .issued(let event): return event
                case .dropped(let event, let activity, let trap, let reason):
                    state.drops.append(
                        IPhoneDrop(
                            at: now, token: Fingerprint(of: token).value, event: event, activityId: activity,
                            trap: trap, reason: reason))
                    return nil
                }
            }
        }
        if let issued { issue(issued) }
        for change in phases { publish(change) }
    }

    /// The app starts an activity itself (`Activity.request`), listening on `channelID` (iOS 18
    /// `pushType: .channel`) or, without one, with an update token reported through `onToken`.
    @discardableResult
    public func startLocally(
        attributesType: String, attributes: JSONValue, contentState: JSONValue, channelID: String?, timestamp: Int64
    ) -> String {
        let now = clock.now()
        let (id, event) = state.withLock { state -> (String, TokenEvent?) in
            let id = "activity-\(state.nextActivity)"
            state.nextActivity += 1
            let token = channelID == nil ? Self.newToken(bytes: 80) : ""
            state.activities[id] = SimulatedActivity(
                id: id, attributesType: attributesType, attributes: attributes, contentState: contentState,
                updateToken: token, channelID: channelID, timestamp: timestamp, startedAt: now, staleDate: nil,
                relevanceScore: nil, endedAt: nil, dismissAt: nil, lastAlert: nil, priority10Times: [])
            state.order.append(id)
            let event: TokenEvent? =
                channelID == nil
                ? .activity(activityID: id, attributesType: attributesType, attributes: attributes, token: token) : nil
            return (id, event)
        }
        if let event { issue(event) }
        return id
    }

    /// The app updates an activity itself (`Activity.update(_:alertConfiguration:timestamp:)`):
    /// ActivityKit orders it with the pushes by `timestamp`, so it is ignored when older than what
    /// is shown, and pushes stamped earlier than it are ignored afterwards (DT-081). Returns true
    /// when applied.
    @discardableResult
    public func localUpdate(activityId: String, contentState: JSONValue, timestamp: Int64) -> Bool {
        let now = clock.now()
        return state.withLock { state in
            func refuse(_ trap: String?, _ reason: String) -> Bool {
                state.drops.append(
                    IPhoneDrop(
                        at: now, token: "local", event: "local-update", activityId: activityId, trap: trap,
                        reason: reason))
                return false
            }
            guard var activity = state.activities[activityId] else {
                return refuse(nil, "the app updated an activity this phone does not have")
            }
            switch activity.phase(at: now) {
            case "ended", "dismissed":
                return refuse(
                    "DT-081",
                    "the activity has ended; ActivityKit ignores local updates after the end as it does pushes")
            default: break
            }
            guard timestamp > activity.timestamp else {
                return refuse(
                    "DT-081",
                    "the local update stamped \(timestamp) is not newer than \(activity.timestamp), already applied; ActivityKit ignores it"
                )
            }
            if let problem = Self.decodeProblem(contentState, type: activity.attributesType) {
                return refuse(problem.trap, "the local content-state does not decode: \(problem.reason)")
            }
            activity.contentState = contentState
            activity.timestamp = timestamp
            activity.localUpdateTimestamp = timestamp
            state.activities[activityId] = activity
            return true
        }
    }

    /// One broadcast APNs delivered on `channelID`: it reaches every activity started on that channel.
    public func receiveBroadcast(channelID: String, payload: [UInt8], priority: Int) {
        let now = clock.now()
        let changes = state.withLock { state in
            Self.phaseChanges(&state, now: now) { state -> Void in
                Self.applyBroadcast(&state, channelID: channelID, payload: payload, priority: priority, now: now)
            }.1
        }
        for change in changes { publish(change) }
    }

    private static func applyBroadcast(
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
        let timestamp = aps["timestamp"]?.numberValue.map { Int64($0) }
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

    /// The channels this phone's activities listen on.
    public var channels: Set<String> { state.withLock { Set($0.activities.values.compactMap(\.channelID)) } }

    /// What a push did.
    enum Outcome {
        case applied
        case issued(TokenEvent)
        case dropped(event: String, activity: String?, trap: String?, reason: String)
    }

    static func newToken(bytes: Int) -> String {
        String(hexEncoding: (0..<bytes).map { _ in UInt8.random(in: 0...255) })
    }

    private static func drop(_ event: String, _ activity: String?, _ trap: String?, _ reason: String) -> Outcome {
        .dropped(event: event, activity: activity, trap: trap, reason: reason)
    }

    private static func apply(_ state: inout State, token: String, payload: [UInt8], priority: Int, now: Date)
        -> Outcome
    {
        guard payload.count <= APNsLimits.devicePayloadBytes else {
            return drop("-", nil, "DT-024", "the push is \(payload.count) bytes; ActivityKit drops pushes over 4096")
        }
        guard let document = try? JSONValue.parse(bytes: payload), let aps = document["aps"]?.objectValue else {
            return drop("-", nil, nil, "the payload is not JSON with an 'aps' object")
        }
        let event = aps["event"]?.stringValue ?? "-"
        let timestamp = aps["timestamp"]?.numberValue.map { Int64($0) }
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
    private static func update(
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

    private static func start(
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
            updateToken: channel == nil ? newToken(bytes: 80) : "", channelID: channel,
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
            return ("DT-017", "'eta' is \(Int(eta)): a Unix time read as seconds since 2001, 31 years ahead")
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
