import Foundation

/// What `LiveActivitySync` needs besides its seams.
@available(iOS 16.0, *)
public struct LiveActivitySyncConfiguration: Sendable {
    /// This phone's id at the server (stable across launches; the app picks it, e.g. a UUID in the keychain).
    public var deviceID: String
    /// Which APNs the tokens belong to; by default what this build's signing says.
    public var environment: APNsEnvironment
    public var retry: RetryPolicy
    /// Waits between retries; tests pass one that returns at once.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// The jitter for each retry, in 0…1.
    public var jitter: @Sendable () -> Double
    /// Every event, as it happens (the app's log).
    public var onEvent: @Sendable (LiveActivitySyncEvent) -> Void
    /// On iOS 17.x, start the hidden placeholder at launch so ActivityKit gives the push-to-start
    /// token (`PlaceholderStart`); off unless the app opts in. Nothing happens on other versions.
    public var pushToStartPlaceholder: Bool

    public init(
        deviceID: String, environment: APNsEnvironment = .ofThisBuild, retry: RetryPolicy = RetryPolicy(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        onEvent: @escaping @Sendable (LiveActivitySyncEvent) -> Void = { _ in },
        pushToStartPlaceholder: Bool = false
    ) {
        self.deviceID = deviceID
        self.environment = environment
        self.retry = retry
        self.sleep = sleep
        self.jitter = jitter
        self.onEvent = onEvent
        self.pushToStartPlaceholder = pushToStartPlaceholder
    }
}

/// Keeps the server's picture of this phone's Live Activities true while the app is closed.
///
/// Start it once at launch (`start()`): it registers every push-to-start token and every activity's
/// update token with the device's facts, again whenever a token rotates or the facts change (and not
/// again on a relaunch, thanks to the ledger), and reports activities that ended or were dismissed.
/// Call `reconcile()` at launch and whenever the app becomes active. Work is done in order, one piece
/// at a time; what fails for a reason that can pass (server down, 429, 5xx) is retried with backoff
/// until it succeeds, and lifecycle reports are kept in the ledger meanwhile, so nothing is lost.
@available(iOS 16.0, *)
public actor LiveActivitySync {
    let host: any LiveActivityHost
    let api: any DropTrackDeviceAPI
    let ledger: any RegistrationLedger
    let configuration: LiveActivitySyncConfiguration

    var contents = LedgerContents()
    var queue: [SyncWork] = []
    var worker: Task<Void, Never>?
    var observers: [Task<Void, Never>] = []
    /// The newest token work per registration key, to send again when the facts change.
    var latestTokens: [String: SyncWork] = [:]
    var observedActivities: Set<String> = []
    /// Server activity ids the phone ended because the server said so: not reported back.
    var endedForServer: Set<String> = []
    /// Everything that happened, newest last (bounded).
    public private(set) var history: [LiveActivitySyncEvent] = []

    public init(
        host: any LiveActivityHost, api: any DropTrackDeviceAPI, ledger: any RegistrationLedger,
        configuration: LiveActivitySyncConfiguration
    ) {
        self.host = host
        self.api = api
        self.ledger = ledger
        self.configuration = configuration
    }

    /// Loads the ledger, resumes the reports still pending from the last launch, and starts observing.
    /// Calling it again does nothing.
    public func start() async {
        guard observers.isEmpty else { return }
        do {
            contents = try await ledger.load()
        } catch {
            emit(.ledgerFailed("could not read the ledger (\(type(of: error))); starting empty"))
        }
        for report in contents.pendingReports { enqueue(.report(report)) }
        let host = self.host
        observers.append(
            Task {
                for await token in host.pushToStartTokens() { self.enqueue(.pushToStart(token)) }
            })
        observers.append(
            Task {
                for await activity in host.activityStarts() { self.observe(activity) }
            })
        await bridgePushToStartGap()
    }

    /// On iOS 17.x, where the push-to-start token waits for a local start: the placeholder when the app
    /// opted in, otherwise one event saying why no token will come.
    func bridgePushToStartGap() async {
        let osVersion = await host.deviceFacts().osVersion
        guard PushToStartAvailability(osVersion: osVersion) == .afterLocalRequest else { return }
        guard configuration.pushToStartPlaceholder else { return emit(.pushToStartWithheld(osVersion: osVersion)) }
        do throws(PlaceholderError) {
            try await host.startHiddenPlaceholder()
            emit(.placeholderStarted)
        } catch {
            emit(.placeholderFailed(error))
        }
    }

    /// Stops observing and working; pending work stays in the ledger for the next launch.
    public func stop() {
        for task in observers { task.cancel() }
        observers = []
        worker?.cancel()
        worker = nil
    }

    /// Work not yet done (tests wait for it to reach zero).
    public var pendingWork: Int { queue.count }

    /// Sends every known token again where the facts changed since it was registered (unchanged ones
    /// are skipped by the ledger). `reconcile()` calls it; call it too when a setting may have changed.
    public func refreshFacts() {
        for work in latestTokens.values.sorted(by: { $0.description < $1.description }) { enqueue(work) }
    }

    func observe(_ activity: LiveActivitySnapshot) {
        guard observedActivities.insert(activity.localID).inserted else { return }
        // The hidden placeholder exists only to unlock the push-to-start token: its update token and its
        // end are nobody's business at the server.
        guard activity.serverActivityID != PlaceholderActivity.activityID else { return }
        guard let serverID = activity.serverActivityID else {
            emit(.unidentified(localID: activity.localID, attributesType: activity.attributesType))
            return
        }
        let host = self.host
        let deviceID = configuration.deviceID
        observers.append(
            Task {
                for await token in host.pushTokens(localID: activity.localID) {
                    self.enqueue(
                        .activityToken(
                            serverActivityID: serverID, token: token, attributes: activity.registrationAttributes))
                }
            })
        observers.append(
            Task {
                for await phase in host.phases(localID: activity.localID) {
                    guard let state = LifecycleReport.State(reportable: phase) else { continue }
                    await self.report(LifecycleReport(activityID: serverID, deviceID: deviceID, state: state))
                }
            })
    }

    /// Queues a lifecycle report and keeps it in the ledger until the server has it.
    func report(_ report: LifecycleReport) async {
        guard !endedForServer.contains(report.activityID), !contents.sentReports.contains(report),
            !contents.pendingReports.contains(report)
        else { return }
        contents.pendingReports.append(report)
        await persist()
        enqueue(.report(report))
    }

    func enqueue(_ work: SyncWork) {
        if let key = work.registrationKey { latestTokens[key] = work }
        guard !queue.dropFirst().contains(work) else { return }
        queue.append(work)
        guard worker == nil else { return }
        worker = Task { await self.drain() }
    }

    /// Works through the queue in order; stops early only when cancelled (the work stays queued).
    func drain() async {
        while let work = queue.first {
            guard await perform(work) else { return }
            queue.removeFirst()
        }
        worker = nil
    }

    /// Does one piece of work, retrying while that can help. False when cancelled before it finished.
    func perform(_ work: SyncWork) async -> Bool {
        var attempt = 0
        while !Task.isCancelled {
            do throws(DeviceAPIError) {
                try await call(work.description) { () async throws(DeviceAPIError) in try await self.send(work) }
                return true
            } catch let error where error.remedy == .retryLater {
                let delay = configuration.retry.delay(
                    attempt: attempt, jitter: configuration.jitter(), retryAfter: error.retryAfter)
                emit(.retrying(work: work.description, attempt: attempt + 1, delay: delay, error: error))
                attempt += 1
                do { try await configuration.sleep(delay) } catch { return false }
            } catch {
                let description = work.description
                emit(
                    error.isMissingRoute
                        ? .serverLacksRoute(work: description) : .gaveUp(work: description, error: error))
                if case .report(let report) = work { await forget(report, sent: false) }
                return true
            }
        }
        return false
    }

    /// One call, with the credential refreshed once if the server refuses it.
    func call<Answer: Sendable>(
        _ what: String, _ operation: () async throws(DeviceAPIError) -> Answer
    ) async throws(DeviceAPIError) -> Answer {
        do throws(DeviceAPIError) {
            return try await operation()
        } catch let error where error.remedy == .refreshCredential {
            await api.invalidateCredential()
            emit(.refreshedCredential(work: what))
            let retried: Answer
            do throws(DeviceAPIError) {
                retried = try await operation()
            } catch let error where error.remedy == .refreshCredential {
                // A fresh credential refused too: the backend's problem, which retrying here cannot fix.
                throw DeviceAPIError(
                    status: error.status, code: error.code, message: error.message + " (after a fresh credential)")
            }
            return retried
        }
    }

    func send(_ work: SyncWork) async throws(DeviceAPIError) {
        switch work {
        case .report(let report):
            if contents.sentReports.contains(report) { return await forget(report, sent: true) }
            try await api.reportLifecycle(report)
            await forget(report, sent: true)
            emit(.reported(report))
        case .pushToStart(let token):
            let facts = await host.deviceFacts()
            let registration = self.registration(.pushToStart, token.attributesType, token.token, facts)
            guard contents.registrations[registration.key] != registration else {
                return emit(.unchanged(key: registration.key))
            }
            try await api.registerPushToStartToken(
                PushToStartRegistration(
                    deviceID: configuration.deviceID, attributesType: token.attributesType, token: token.token,
                    environment: configuration.environment, facts: facts))
            await remember(registration)
        case .activityToken(let serverID, let token, let attributes):
            let facts = await host.deviceFacts()
            let registration = self.registration(.activity, serverID, token, facts)
            guard contents.registrations[registration.key] != registration else {
                return emit(.unchanged(key: registration.key))
            }
            try await api.registerActivityToken(
                ActivityTokenRegistration(
                    deviceID: configuration.deviceID, activityID: serverID, token: token,
                    environment: configuration.environment, facts: facts, attributes: attributes))
            await remember(registration)
        }
    }

    func registration(_ kind: Registration.Kind, _ subject: String, _ token: Data, _ facts: DeviceFacts)
        -> Registration
    {
        Registration(
            kind: kind, subject: subject, token: TokenFingerprint(token: token),
            environment: configuration.environment, factsDigest: facts.digest)
    }

    func remember(_ registration: Registration) async {
        contents.registrations[registration.key] = registration
        await persist()
        emit(.registered(registration))
    }

    func forget(_ report: LifecycleReport, sent: Bool) async {
        contents.pendingReports.removeAll { $0 == report }
        if sent { contents.sentReports.insert(report) }
        await persist()
    }

    func persist() async {
        do {
            try await ledger.save(contents)
        } catch {
            emit(.ledgerFailed("could not write the ledger (\(type(of: error)))"))
        }
    }

    func emit(_ event: LiveActivitySyncEvent) {
        history.append(event)
        if history.count > 1000 { history.removeFirst(history.count - 1000) }
        configuration.onEvent(event)
    }
}

@available(iOS 16.0, *)
extension LifecycleReport.State {
    /// The phases worth telling the server: the end, and the person dismissing it.
    init?(reportable phase: LiveActivityPhase) {
        switch phase {
        case .ended: self = .ended
        case .dismissed: self = .dismissed
        case .pending, .active, .stale: return nil
        }
    }
}
