import Foundation

/// Several attributes types' activities as one `LiveActivityHost`, so one sync (one ledger, one
/// reconciliation) covers them all: the app's delivery type and, say, a patched expo-widgets'
/// `LiveActivityAttributes`. The push-to-start tokens, the device's facts and the placeholder are the
/// primary host's; activities, their tokens and phases come from every host.
public struct CombinedLiveActivityHost: LiveActivityHost {
    public let primary: any LiveActivityHost
    public let others: [any LiveActivityHost]

    public init(primary: any LiveActivityHost, others: [any LiveActivityHost]) {
        self.primary = primary
        self.others = others
    }

    private var all: [any LiveActivityHost] { [primary] + others }

    public func pushToStartTokens() -> AsyncStream<PushToStartToken> { primary.pushToStartTokens() }

    public func activityStarts() -> AsyncStream<LiveActivitySnapshot> { Self.merge(all.map { $0.activityStarts() }) }

    public func runningActivities() async -> [LiveActivitySnapshot] {
        var running: [LiveActivitySnapshot] = []
        for host in all { running += await host.runningActivities() }
        return running
    }

    /// A host that does not have the activity finishes its stream at once, so the merge is the owner's.
    public func pushTokens(localID: String) -> AsyncStream<Data> {
        Self.merge(all.map { $0.pushTokens(localID: localID) })
    }

    public func phases(localID: String) -> AsyncStream<LiveActivityPhase> {
        Self.merge(all.map { $0.phases(localID: localID) })
    }

    public func endLocally(localID: String) async {
        for host in all { await host.endLocally(localID: localID) }
    }

    public func deviceFacts() async -> DeviceFacts { await primary.deviceFacts() }

    public func startHiddenPlaceholder() async throws(PlaceholderError) { try await primary.startHiddenPlaceholder() }

    /// One stream of everything the streams yield, finished once they all are.
    static func merge<Element: Sendable>(_ streams: [AsyncStream<Element>]) -> AsyncStream<Element> {
        AsyncStream { continuation in
            let task = Task {
                await withTaskGroup(of: Void.self) { group in
                    for stream in streams {
                        group.addTask {
                            for await element in stream { continuation.yield(element) }
                        }
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
