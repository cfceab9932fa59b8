import DropTrackContract
import DropTrackEmulators
import DropTrackLive
import Foundation
import Synchronization

/// The simulated iPhone's app, running the code that ships to apps: DropTrackLive's
/// `LiveActivitySync` over the phone (`liveActivityHost()`, so the facts come from its settings),
/// registering tokens with the demo server over HTTP with a device credential its backend mints.
/// The file ledger outlives a relaunch, as an app's Application Support folder does, so a relaunch
/// re-sends nothing the server already has.
public final class DemoIPhoneApp: Sendable {
    /// The device id the app registers as.
    public static let deviceID = "demo-iphone"

    /// What one relaunch did.
    public struct Relaunch: Sendable, Equatable {
        /// Tokens the new launch sent to the server (none when the ledger says the server has them).
        public var tokensResent: Int
        /// Work the new launch still had queued when it settled (the server could not be reached).
        public var pending: Int
        /// What the launch's reconciliation did.
        public var reconciled: ReconcileOutcome

        /// One line for the dashboard, e.g. "relaunched: 0 tokens re-sent, reconciled: ended 0, lost 0".
        public var summary: String {
            var line = "relaunched: \(tokensResent) token\(tokensResent == 1 ? "" : "s") re-sent"
            if pending > 0 { line += " (\(pending) still pending)" }
            if let failure = reconciled.failure { return line + ", reconcile failed: \(failure.code)" }
            return line + ", reconciled: ended \(reconciled.endedLocally.count), lost \(reconciled.reportedLost.count)"
        }
    }

    /// One line of the app's log for the dashboard; tokens appear by fingerprint only.
    public struct LogLine: Sendable, Equatable {
        /// `registered`, `unchanged`, `reported`, `retrying`, `failed`, `ended`, `launch`…
        public var kind: String
        /// What happened, in words; tokens by fingerprint.
        public var text: String
    }

    private struct State {
        var sync: LiveActivitySync?
        var closed = false
        var log: [LogLine] = []
        var lastRelaunch: Relaunch?
        var credentialsMinted = 0
    }

    private let phone: IPhoneSimulator
    private let serverURL: @Sendable () -> URL
    private let ledger: FileRegistrationLedger
    private let backend: @Sendable () throws -> String
    private let onLog: @Sendable (LogLine) -> Void
    private let state = Mutex(State())

    /// - Parameters:
    ///   - serverURL: the demo server, as the app reaches it over HTTP (known once it listens).
    ///   - ledgerDirectory: where the ledger file lives across launches.
    ///   - backend: the app's backend: returns a fresh device credential (it holds the API key).
    ///   - onLog: every line of the app's log, as it happens.
    init(
        phone: IPhoneSimulator, serverURL: @escaping @Sendable () -> URL, ledgerDirectory: URL,
        backend: @escaping @Sendable () throws -> String, onLog: @escaping @Sendable (LogLine) -> Void
    ) {
        self.phone = phone
        self.serverURL = serverURL
        ledger = FileRegistrationLedger(directory: ledgerDirectory)
        self.backend = backend
        self.onLog = onLog
    }

    /// The app's log, newest last (bounded).
    public var log: [LogLine] { state.withLock { $0.log } }
    /// What the last relaunch did, if there was one.
    public var lastRelaunch: Relaunch? { state.withLock { $0.lastRelaunch } }
    /// Device credentials the backend minted for the app.
    public var credentialsMinted: Int { state.withLock { $0.credentialsMinted } }
    /// The running sync, if the app is open.
    public var sync: LiveActivitySync? { state.withLock { $0.sync } }

    /// Launches the app: a new sync over the same ledger, started, replacing (and stopping) the one
    /// running. Returns nil once the app is closed for good.
    @discardableResult
    public func launch() async -> LiveActivitySync? { await inForeground { await self.launchNow() } }

    private func launchNow() async -> LiveActivitySync? {
        // Weak: the sync holds the API, which holds this closure, and the app holds the sync.
        let api = HTTPDeviceAPI(baseURL: serverURL()) { [weak self] in
            guard let self else { throw CancellationError() }
            return try await self.credential()
        }
        let sync = LiveActivitySync(
            host: phone.liveActivityHost(), api: api,
            ledger: ledger,
            configuration: LiveActivitySyncConfiguration(
                deviceID: Self.deviceID, environment: .sandbox,
                retry: RetryPolicy(initialDelay: .milliseconds(200), maximumDelay: .seconds(5)),
                onEvent: { [weak self] event in self?.append(Self.logLine(event)) }))
        let previous = state.withLock { state -> (closed: Bool, sync: LiveActivitySync?) in
            guard !state.closed else { return (true, nil) }
            defer { state.sync = sync }
            return (false, state.sync)
        }
        guard !previous.closed else { return nil }
        append(LogLine(kind: "launch", text: previous.sync == nil ? "app launched" : "app relaunched"))
        await previous.sync?.stop()
        await sync.start()
        // Closed, or launched again, while this one was starting: it must not go on observing.
        guard state.withLock({ $0.sync === sync }) else {
            await sync.stop()
            return nil
        }
        // What an app writes at launch: the card's button sends its press through this sync.
        LiveActivityActions.register(sync)
        return sync
    }

    /// The person taps the card's "Got it" button: iOS runs its intent in the app, which sends the
    /// press; the log says what happened (`pressed`, from the sync, or why it could not be pressed).
    public func pressButton() async {
        await inForeground {
            guard let card = self.phone.activities.last(where: { $0.phase(at: Date()) == "active" }) else {
                self.append(LogLine(kind: "failed", text: "no card on the Lock Screen to press"))
                return
            }
            do {
                try await self.phone.pressButton(activityID: card.id, action: .confirmReceipt)
            } catch let error as DeviceAPIError {
                self.append(LogLine(kind: "failed", text: "press refused: \(Self.describe(error))"))
            } catch {
                self.append(LogLine(kind: "failed", text: "press: \(error)"))
            }
        }
    }

    /// Closes the app and opens it again, as a person does: the new launch starts its sync over the
    /// same ledger and reconciles, then reports once its queue has settled.
    @discardableResult
    public func relaunch() async -> Relaunch? { await inForeground { await self.relaunchNow() } }

    private func relaunchNow() async -> Relaunch? {
        guard let sync = await launchNow() else { return nil }
        let reconciled = await sync.reconcile()
        let pending = await settle(sync)
        let history = await sync.history
        let resent = history.filter {
            if case .registered = $0 { return true }
            return false
        }.count
        let outcome = Relaunch(tokensResent: resent, pending: pending, reconciled: reconciled)
        state.withLock { $0.lastRelaunch = outcome }
        append(LogLine(kind: "relaunch", text: outcome.summary))
        return outcome
    }

    /// The phone's settings changed: the running sync reports the new facts with every token.
    public func refreshFacts() async {
        let sync = self.sync
        await inForeground { await sync?.refreshFacts() }
    }

    /// Starts `work` on the app without waiting for it (the demo's start, the dashboard's buttons).
    func runWithoutWaiting(_ work: @escaping @Sendable (DemoIPhoneApp) async -> Void) {
        Task(priority: Self.priority) { await work(self) }
    }

    /// The app's work runs at high priority, as iOS runs the app in front, so the tasks the sync makes
    /// (they inherit it) are not queued behind every other waiting job of a busy process (the tests).
    static let priority = TaskPriority.high

    private func inForeground<Result: Sendable>(_ work: @escaping @Sendable () async -> Result) async -> Result {
        await Task(priority: Self.priority) { await work() }.value
    }

    /// Closes the app for good (the demo stops): its sync stops observing and retrying.
    public func close() {
        let sync = state.withLock { state in
            state.closed = true
            defer { state.sync = nil }
            return state.sync
        }
        if let sync { Task(priority: Self.priority) { await sync.stop() } }
    }

    /// Waits until the sync's queue has stayed empty for a moment (its streams deliver what the phone
    /// holds a little after `start()`), at most a few seconds; returns the work still queued.
    private func settle(_ sync: LiveActivitySync) async -> Int {
        var quiet = 0
        for _ in 0..<100 {
            quiet = await sync.pendingWork == 0 ? quiet + 1 : 0
            if quiet == 4 { return 0 }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return await sync.pendingWork
    }

    /// What the app's backend does when the app asks: mint a device credential with its API key.
    private func credential() async throws -> String {
        let minted = try backend()
        state.withLock { $0.credentialsMinted += 1 }
        return minted
    }

    private func append(_ line: LogLine) {
        state.withLock { state in
            state.log.append(line)
            if state.log.count > 50 { state.log.removeFirst(state.log.count - 50) }
        }
        onLog(line)
    }

    /// A sync event as one line; tokens by fingerprint, errors by status and code.
    static func logLine(_ event: LiveActivitySyncEvent) -> LogLine {
        switch event {
        case .registered(let registration):
            let kind = registration.kind == .pushToStart ? "push-to-start" : "update"
            return LogLine(
                kind: "registered", text: "registered \(kind) token \(registration.token) for \(registration.subject)")
        case .unchanged(let key):
            return LogLine(kind: "unchanged", text: "not re-sent: the ledger says the server has \(key)")
        case .reported(let report):
            return LogLine(kind: "reported", text: "reported '\(report.state.rawValue)' for \(report.activityID)")
        case .retrying(let work, let attempt, let delay, let error):
            return LogLine(
                kind: "retrying", text: "retrying \(work) (attempt \(attempt), in \(delay)): \(describe(error))")
        case .refreshedCredential(let work):
            return LogLine(
                kind: "credential", text: "credential refused; asked the backend for a fresh one for \(work)")
        case .gaveUp(let work, let error):
            return LogLine(kind: "failed", text: "failed: \(work): \(describe(error))")
        case .endedLocally(let activityID):
            return LogLine(kind: "ended", text: "ended \(activityID) on the phone: the server says it is over")
        case .serverLacksRoute(let work):
            return LogLine(kind: "failed", text: "the server has no route for \(work)")
        case .unidentified(let localID, let attributesType):
            return LogLine(kind: "failed", text: "activity \(localID) (\(attributesType)) names no server activity")
        case .ledgerFailed(let message):
            return LogLine(kind: "failed", text: "ledger: \(message)")
        case .actionPressed(let press):
            return LogLine(kind: "pressed", text: "pressed '\(press.action)' on \(press.activityID): the server has it")
        case .pushToStartWithheld(let osVersion):
            return LogLine(
                kind: "failed", text: LiveActivitySyncEvent.pushToStartWithheldExplanation(osVersion: osVersion))
        case .placeholderStarted:
            return LogLine(
                kind: "placeholder", text: "started and ended the hidden placeholder for the push-to-start token")
        case .placeholderFailed(let error):
            return LogLine(kind: "failed", text: "placeholder: \(error.message)")
        }
    }

    /// Status and code only: a server message is not the app's to show.
    private static func describe(_ error: DeviceAPIError) -> String {
        error.status.map { "\($0) \(error.code)" } ?? error.code
    }
}
