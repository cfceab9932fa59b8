import DropTrackContract
import DropTrackCore
import DropTrackModel
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
/// ActivityKit's rules for each push are in IPhoneSimulator+Rules.swift.
public final class IPhoneSimulator: Sendable {
    /// iOS ends an activity after 8 hours.
    public static let maximumActiveSeconds: TimeInterval = 8 * 3600
    /// An ended activity stays on the Lock Screen this long by default.
    public static let defaultDismissalSeconds: TimeInterval = 4 * 3600

    /// A token the app reports to its server: push-to-start (per attributes type) or the update
    /// token of a new activity.
    public enum TokenEvent: Sendable, Equatable {
        case pushToStart(attributesType: String, token: DeviceToken)
        case activity(activityID: String, attributesType: String, attributes: JSONValue, token: DeviceToken)
    }

    struct State {
        var settings: IPhoneSettings
        /// Push-to-start tokens by attributes type.
        var pushToStartTokens: [String: DeviceToken] = [:]
        var activities: [String: SimulatedActivity] = [:]
        var order: [String] = []
        var drops: [IPhoneDrop] = []
        var received = 0
        var nextActivity = 1
        /// Whether the app has requested an activity itself (`Activity.request`) since the phone started.
        var madeLocalRequest = false

        /// Whether ActivityKit hands out the push-to-start tokens yet: iOS 17.x withholds them until the
        /// app's first local request; iOS 18 gives them without one.
        var pushToStartIssued: Bool { settings.osVersion != 17 || madeLocalRequest }

        /// The push-to-start tokens the app can see.
        var issuedPushToStartTokens: [String: DeviceToken] { pushToStartIssued ? pushToStartTokens : [:] }
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
    /// `appRequestedBefore` says the app already requested an activity itself in an earlier launch,
    /// which on iOS 17.x is what releases the push-to-start tokens (an app past its placeholder start).
    public init(
        deviceID: String, attributesTypes: [String] = [DeliveryAttributes.typeName], settings: IPhoneSettings = .init(),
        appRequestedBefore: Bool = false, clock: any WallClock = SystemWallClock(),
        onToken: @escaping @Sendable (TokenEvent) -> Void = { _ in }
    ) {
        self.deviceID = deviceID
        self.clock = clock
        self.onToken = onToken
        var initial = State(settings: settings)
        initial.madeLocalRequest = appRequestedBefore
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
    /// Empty on iOS 17.x until the app has requested an activity itself.
    public var pushToStartTokensByType: [String: DeviceToken] { state.withLock { $0.issuedPushToStartTokens } }

    /// Reports the push-to-start tokens, as the app does at launch.
    public func registerPushToStartTokens() {
        for (type, token) in state.withLock({ $0.issuedPushToStartTokens }).sorted(by: { $0.key < $1.key }) {
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
    public var tokens: Set<DeviceToken> {
        state.withLock { state in
            Set(state.issuedPushToStartTokens.values).union(
                state.activities.values.map(\.updateToken).filter { !$0.isEmpty })
        }
    }

    /// The push-to-start token for an attributes type.
    public func pushToStartToken(for attributesType: String) -> DeviceToken? {
        state.withLock { $0.issuedPushToStartTokens[attributesType] }
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

    /// One push APNs delivered to `token` (matched case-insensitively, as APNs reads hex).
    public func receive(token: DeviceToken, payload: [UInt8], priority: Int) {
        let now = clock.now()
        let token = DeviceToken(token.wireValue.lowercased())
        let (issued, phases): (TokenEvent?, [Change]) = state.withLock { state in
            state.received += 1
            return Self.phaseChanges(&state, now: now) { state in
                switch Self.apply(&state, token: token, payload: payload, priority: priority, now: now) {
                case .applied: return nil
                case .issued(let event): return event
                case .dropped(let event, let activity, let trap, let reason):
                    state.drops.append(
                        IPhoneDrop(
                            at: now, token: token.fingerprint.value, event: event, activityId: activity,
                            trap: trap, reason: reason))
                    return nil
                }
            }
        }
        if let issued { issue(issued) }
        for change in phases { publish(change) }
    }

    /// The app starts an activity itself (`Activity.request`), listening on `channelID` (iOS 18
    /// `pushType: .channel`) or, without one, with an update token reported through `onToken`. On iOS
    /// 17.x the first one also releases the push-to-start tokens, issued after the activity's own.
    @discardableResult
    public func startLocally(
        attributesType: String, attributes: JSONValue, contentState: JSONValue, channelID: String?, timestamp: Int64
    ) -> String {
        let now = clock.now()
        let (id, event, released) = state.withLock { state -> (String, TokenEvent?, [String: DeviceToken]) in
            let wasIssued = state.pushToStartIssued
            state.madeLocalRequest = true
            let released = wasIssued ? [:] : state.pushToStartTokens
            let id = "activity-\(state.nextActivity)"
            state.nextActivity += 1
            let token = channelID == nil ? Self.newToken(bytes: 80) : DeviceToken("")
            state.activities[id] = SimulatedActivity(
                id: id, attributesType: attributesType, attributes: attributes, contentState: contentState,
                updateToken: token, channelID: channelID, timestamp: timestamp, startedAt: now, staleDate: nil,
                relevanceScore: nil, endedAt: nil, dismissAt: nil, lastAlert: nil, priority10Times: [])
            state.order.append(id)
            let event: TokenEvent? =
                channelID == nil
                ? .activity(activityID: id, attributesType: attributesType, attributes: attributes, token: token) : nil
            return (id, event, released)
        }
        if let event { issue(event) }
        for (type, token) in released.sorted(by: { $0.key < $1.key }) {
            issue(.pushToStart(attributesType: type, token: token))
        }
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

    /// The channels this phone's activities listen on.
    public var channels: Set<String> { state.withLock { Set($0.activities.values.compactMap(\.channelID)) } }
}
