import DropTrackLive
import Foundation
import Synchronization

/// ActivityKit in memory: the test plays the system (issues and rotates tokens, starts activities,
/// changes phases) and the sync observes it through `LiveActivityHost`.
final class InMemoryHost: LiveActivityHost {
    enum Change: Sendable {
        case pushToStart(PushToStartToken)
        case started(LiveActivitySnapshot)
        case token(localID: String, token: Data)
        case phase(localID: String, phase: LiveActivityPhase)
    }

    struct State {
        var pushToStart: [PushToStartToken] = []
        var activities: [LiveActivitySnapshot] = []
        var tokens: [String: Data] = [:]
        var facts = DeviceFacts(
            areActivitiesEnabled: true, frequentPushesEnabled: false, osVersion: "18.1", appBuild: "7")
        var endedLocally: [String] = []
    }

    let state = Mutex(State())
    private let watchers = Mutex<[UUID: @Sendable (Change) -> Void]>([:])

    func issuePushToStart(_ type: String, _ token: Data) {
        let issued = PushToStartToken(attributesType: type, token: token)
        state.withLock { $0.pushToStart.append(issued) }
        publish(.pushToStart(issued))
    }

    /// A push-to-start arrived: the activity appears with its first update token.
    func start(localID: String, serverID: String?, token: Data) {
        let snapshot = LiveActivitySnapshot(
            localID: localID, attributesType: "DeliveryAttributes", serverActivityID: serverID, phase: .active)
        state.withLock {
            $0.activities.append(snapshot)
            $0.tokens[localID] = token
        }
        publish(.started(snapshot))
        publish(.token(localID: localID, token: token))
    }

    func rotate(localID: String, to token: Data) {
        state.withLock { $0.tokens[localID] = token }
        publish(.token(localID: localID, token: token))
    }

    func setPhase(localID: String, _ phase: LiveActivityPhase) {
        state.withLock { state in
            if phase == .dismissed {
                state.activities.removeAll { $0.localID == localID }
            } else if let index = state.activities.firstIndex(where: { $0.localID == localID }) {
                state.activities[index].phase = phase
            }
        }
        publish(.phase(localID: localID, phase: phase))
    }

    func setFacts(_ change: (inout DeviceFacts) -> Void) { state.withLock { change(&$0.facts) } }

    /// The activity vanished without a word (iOS dropped it): no phase change is announced.
    func forget(localID: String) { state.withLock { $0.activities.removeAll { $0.localID == localID } } }

    var endedLocally: [String] { state.withLock { $0.endedLocally } }

    func pushToStartTokens() -> AsyncStream<PushToStartToken> {
        stream(current: { $0.pushToStart }) { change in
            if case .pushToStart(let token) = change { return token }
            return nil
        }
    }

    func activityStarts() -> AsyncStream<LiveActivitySnapshot> {
        stream(current: { $0.activities }) { change in
            if case .started(let snapshot) = change { return snapshot }
            return nil
        }
    }

    func runningActivities() async -> [LiveActivitySnapshot] { state.withLock { $0.activities } }

    func pushTokens(localID: String) -> AsyncStream<Data> {
        stream(current: { state in state.tokens[localID].map { [$0] } ?? [] }) { change in
            if case .token(let id, let token) = change, id == localID { return token }
            return nil
        }
    }

    func phases(localID: String) -> AsyncStream<LiveActivityPhase> {
        stream(current: { state in state.activities.filter { $0.localID == localID }.map(\.phase) }) { change in
            if case .phase(let id, let phase) = change, id == localID { return phase }
            return nil
        }
    }

    func endLocally(localID: String) async {
        state.withLock { $0.endedLocally.append(localID) }
        setPhase(localID: localID, .dismissed)
    }

    func deviceFacts() async -> DeviceFacts { state.withLock { $0.facts } }

    private func publish(_ change: Change) {
        for watcher in watchers.withLock({ Array($0.values) }) { watcher(change) }
    }

    /// What is current now, then every matching change.
    private func stream<Element: Sendable>(
        current: (State) -> [Element], _ match: @escaping @Sendable (Change) -> Element?
    ) -> AsyncStream<Element> {
        let (output, continuation) = AsyncStream.makeStream(of: Element.self)
        let key = UUID()
        // Under the state lock, so no change slips between the current values and the first change.
        state.withLock { state in
            watchers.withLock { watchers in
                watchers[key] = { change in
                    if let element = match(change) { continuation.yield(element) }
                }
            }
            for element in current(state) { continuation.yield(element) }
        }
        continuation.onTermination = { [weak self] _ in _ = self?.watchers.withLock { $0.removeValue(forKey: key) } }
        return output
    }
}
