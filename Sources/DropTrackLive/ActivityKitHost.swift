import Foundation

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

@available(iOS 16.2, *)
extension LiveActivityPhase {
    /// The phase ActivityKit's state stands for. Compared rather than switched: ActivityKit's enum is not
    /// frozen and grows cases (iOS 26 added `.pending`, a scheduled start), and an unknown one is taken
    /// as running rather than as over.
    public init(_ state: ActivityState) {
        if state == .ended {
            self = .ended
        } else if state == .dismissed {
            self = .dismissed
        } else if state == .stale {
            self = .stale
        } else if #available(iOS 26.0, *), state == .pending {
            self = .pending
        } else {
            self = .active
        }
    }
}

/// The real `LiveActivityHost`: ActivityKit's `Activity<Attributes>` for one attributes type.
///
/// Each stream is a task over ActivityKit's sequence that first yields what is current
/// (`Activity.activities`, `pushToken`, `pushToStartToken`), so a token issued before the sync
/// started is registered too; the sync drops repeats through its ledger.
@available(iOS 16.2, *)
public struct ActivityKitHost<Attributes: ActivityAttributes & DropTrackIdentifiedAttributes & Sendable>:
    LiveActivityHost
{
    /// The name ActivityKit matches against `attributes-type`: the Swift type's name.
    public let attributesType: String
    private let appBuild: String?
    private let placeholder: PlaceholderStart<Attributes>?
    private let osVersion: String

    /// A host for `Attributes`, reporting `appBuild` (the bundle's `CFBundleVersion` by default).
    ///
    /// - Parameters:
    ///   - placeholder: what `startHiddenPlaceholder()` requests (the iOS 17.x workaround); nil, it throws.
    ///   - osVersion: the version reported in the facts, which decides the workaround; the phone's own
    ///     by default.
    public init(
        _ attributes: Attributes.Type = Attributes.self, appBuild: String? = DeviceFacts.bundleBuild,
        placeholder: PlaceholderStart<Attributes>? = nil, osVersion: String = DeviceFacts.systemVersion
    ) {
        attributesType = String(describing: Attributes.self)
        self.appBuild = appBuild
        self.placeholder = placeholder
        self.osVersion = osVersion
    }

    public func startHiddenPlaceholder() async throws(PlaceholderError) {
        guard let placeholder else {
            throw PlaceholderError("no placeholder: pass ActivityKitHost(placeholder: PlaceholderStart(…))")
        }
        try await placeholder.run()
    }

    /// Push-to-start exists from iOS 17.2; on 17.0 and 17.1 there is none, and the stream finishes at
    /// once. On 17.x the token comes only after a local start (see `PlaceholderStart`).
    public func pushToStartTokens() -> AsyncStream<PushToStartToken> {
        let type = attributesType
        return Self.stream { continuation in
            guard #available(iOS 17.2, *) else { return }
            let updates = Activity<Attributes>.pushToStartTokenUpdates
            if let token = Activity<Attributes>.pushToStartToken {
                continuation.yield(PushToStartToken(attributesType: type, token: token))
            }
            for await token in updates { continuation.yield(PushToStartToken(attributesType: type, token: token)) }
        }
    }

    public func activityStarts() -> AsyncStream<LiveActivitySnapshot> {
        Self.stream { continuation in
            let updates = Activity<Attributes>.activityUpdates
            for activity in Activity<Attributes>.activities { continuation.yield(Self.snapshot(activity)) }
            for await activity in updates { continuation.yield(Self.snapshot(activity)) }
        }
    }

    public func runningActivities() async -> [LiveActivitySnapshot] {
        Activity<Attributes>.activities.map(Self.snapshot)
    }

    public func pushTokens(localID: String) -> AsyncStream<Data> {
        Self.stream { continuation in
            guard let activity = Self.activity(localID) else { return }
            let updates = activity.pushTokenUpdates
            if let token = activity.pushToken { continuation.yield(token) }
            for await token in updates { continuation.yield(token) }
        }
    }

    public func phases(localID: String) -> AsyncStream<LiveActivityPhase> {
        Self.stream { continuation in
            guard let activity = Self.activity(localID) else { return }
            let updates = activity.activityStateUpdates
            continuation.yield(Self.phase(activity.activityState))
            for await state in updates {
                continuation.yield(Self.phase(state))
                if state == .dismissed { return }
            }
        }
    }

    public func endLocally(localID: String) async {
        guard let activity = Self.activity(localID) else { return }
        await activity.end(nil, dismissalPolicy: .immediate)
    }

    public func deviceFacts() async -> DeviceFacts {
        let info = ActivityAuthorizationInfo()
        return DeviceFacts(
            areActivitiesEnabled: info.areActivitiesEnabled, frequentPushesEnabled: info.frequentPushesEnabled,
            osVersion: osVersion, appBuild: appBuild)
    }

    static func activity(_ localID: String) -> Activity<Attributes>? {
        Activity<Attributes>.activities.first { $0.id == localID }
    }

    static func snapshot(_ activity: Activity<Attributes>) -> LiveActivitySnapshot {
        let serverID = activity.attributes.dropTrackActivityID
        return LiveActivitySnapshot(
            localID: activity.id, attributesType: String(describing: Attributes.self),
            serverActivityID: serverID.isEmpty ? nil : serverID, phase: phase(activity.activityState),
            registrationAttributes: activity.attributes.dropTrackRegistrationAttributes)
    }

    static func phase(_ state: ActivityState) -> LiveActivityPhase { LiveActivityPhase(state) }

    /// A stream fed by `body` in a task that is cancelled when the listener goes away.
    static func stream<Element: Sendable>(
        _ body: @escaping @Sendable (AsyncStream<Element>.Continuation) async -> Void
    ) -> AsyncStream<Element> {
        AsyncStream { continuation in
            let task = Task {
                await body(continuation)
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
