import DropTrackContract
import DropTrackCore
import DropTrackLive
import DropTrackModel
import Foundation

/// The simulated iPhone playing ActivityKit for `DropTrackLive`: its tokens, activities and phases
/// as a `LiveActivityHost`, so `LiveActivitySync` runs against it as it runs against ActivityKit.
public struct SimulatedLiveActivityHost: LiveActivityHost {
    public let phone: IPhoneSimulator
    private let appBuild: String?

    public init(phone: IPhoneSimulator, appBuild: String? = "1") {
        self.phone = phone
        self.appBuild = appBuild
    }

    /// As ActivityKit: none below iOS 17 (the simulator's rule for push-to-start), and on 17.x none until
    /// the app has requested an activity itself (the phone issues them then, as a change).
    public func pushToStartTokens() -> AsyncStream<PushToStartToken> {
        stream { changes, continuation in
            guard phone.settings.osVersion >= 17 else { return }
            for (type, token) in phone.pushToStartTokensByType.sorted(by: { $0.key < $1.key }) {
                if let data = Data(pushTokenHex: token.wireValue) {
                    continuation.yield(.init(attributesType: type, token: data))
                }
            }
            for await change in changes {
                guard case .token(.pushToStart(let type, let token)) = change,
                    let data = Data(pushTokenHex: token.wireValue)
                else { continue }
                continuation.yield(.init(attributesType: type, token: data))
            }
        }
    }

    public func activityStarts() -> AsyncStream<LiveActivitySnapshot> {
        stream { changes, continuation in
            for activity in running() { continuation.yield(snapshot(activity)) }
            for await change in changes {
                // A new activity is announced by its first token; a rotation names a known one, which the
                // sync ignores.
                guard case .token(.activity(let id, _, _, _)) = change,
                    let activity = phone.activities.first(where: { $0.id == id })
                else { continue }
                continuation.yield(snapshot(activity))
            }
        }
    }

    public func runningActivities() async -> [LiveActivitySnapshot] { running().map(snapshot) }

    public func pushTokens(localID: String) -> AsyncStream<Data> {
        stream { changes, continuation in
            if let current = phone.activities.first(where: { $0.id == localID })?.updateToken,
                let data = Data(pushTokenHex: current.wireValue), !data.isEmpty
            {
                continuation.yield(data)
            }
            for await change in changes {
                guard case .token(.activity(let id, _, _, let token)) = change, id == localID,
                    let data = Data(pushTokenHex: token.wireValue)
                else { continue }
                continuation.yield(data)
            }
        }
    }

    public func phases(localID: String) -> AsyncStream<LiveActivityPhase> {
        stream { changes, continuation in
            guard let activity = phone.activities.first(where: { $0.id == localID }) else { return }
            let current = self.phase(activity)
            continuation.yield(current)
            if current == .dismissed { return }
            for await change in changes {
                guard case .phase(let id, let name) = change, id == localID,
                    let phase = LiveActivityPhase(rawValue: name)
                else { continue }
                continuation.yield(phase)
                if phase == .dismissed { return }
            }
        }
    }

    public func endLocally(localID: String) async { phone.endLocally(activityID: localID) }

    /// As `PlaceholderStart.run()` on a phone: a delivery activity naming the placeholder's id is
    /// requested and ended at once with immediate dismissal (on iOS 17.x this releases the push-to-start
    /// tokens).
    public func startHiddenPlaceholder() async throws(PlaceholderError) {
        let state = DeliveryAttributes.ContentState(
            status: "", progress: 0, eta: phone.now, stopsRemaining: 0, courierName: "", riderReassigned: false)
        guard let encoded = try? LiveActivityJSON.encode(state),
            let contentState = try? JSONValue.parse(bytes: [UInt8](encoded))
        else { throw PlaceholderError("the placeholder's content-state does not encode") }
        let id = phone.startLocally(
            attributesType: DeliveryAttributes.typeName,
            attributes: .object(["orderId": .string(PlaceholderActivity.activityID)]), contentState: contentState,
            channelID: nil, timestamp: Int64(phone.now.timeIntervalSince1970))
        phone.endLocally(activityID: id)
    }

    public func deviceFacts() async -> DropTrackLive.DeviceFacts {
        let settings = phone.settings
        return DropTrackLive.DeviceFacts(
            areActivitiesEnabled: settings.liveActivitiesEnabled, frequentPushesEnabled: settings.frequentUpdates,
            osVersion: String(settings.osVersion), appBuild: appBuild)
    }

    /// What `Activity.activities` lists: everything not dismissed.
    private func running() -> [SimulatedActivity] {
        phone.activities.filter { phase($0) != .dismissed }
    }

    func phase(_ activity: SimulatedActivity) -> LiveActivityPhase {
        LiveActivityPhase(rawValue: activity.phase(at: phone.now)) ?? .active
    }

    /// The server's activity id, read from the attributes as the app's `DropTrackIdentifiedAttributes` does.
    func snapshot(_ activity: SimulatedActivity) -> LiveActivitySnapshot {
        let identity = Self.identity(attributesType: activity.attributesType, attributes: activity.attributes)
        return LiveActivitySnapshot(
            localID: activity.id, attributesType: activity.attributesType, serverActivityID: identity.id,
            phase: phase(activity), registrationAttributes: identity.registration)
    }

    /// Which server activity the attributes name, and what the token is registered with: the delivery's
    /// `orderId` (sent as the id), or the `activityId` any other type carries (a patched expo-widgets'
    /// `LiveActivityAttributes`), sent as the attributes the server matches the token by.
    static func identity(attributesType: String, attributes: JSONValue) -> (
        id: String?, registration: [String: String]?
    ) {
        if attributesType == DeliveryAttributes.typeName {
            let decoded = try? LiveActivityJSON.decode(DeliveryAttributes.self, from: attributes.encoded())
            return (decoded?.dropTrackActivityID, nil)
        }
        let key = ExpoWidgetsAttributes.activityIdKey
        guard let id = attributes[key]?.stringValue, !id.isEmpty else { return (nil, nil) }
        return (id, [key: id])
    }

    /// Subscribes to the phone's changes now (so nothing between the snapshot and the first change is
    /// missed), then runs `body` in a task cancelled with the stream.
    private func stream<Element: Sendable>(
        _ body:
            @escaping @Sendable (AsyncStream<IPhoneSimulator.Change>, AsyncStream<Element>.Continuation) async ->
            Void
    ) -> AsyncStream<Element> {
        let changes = phone.changes()
        return AsyncStream { continuation in
            let task = Task {
                await body(changes, continuation)
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension IPhoneSimulator {
    /// This phone as ActivityKit for `LiveActivitySync`.
    public func liveActivityHost(appBuild: String? = "1") -> SimulatedLiveActivityHost {
        SimulatedLiveActivityHost(phone: self, appBuild: appBuild)
    }
}
