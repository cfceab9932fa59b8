import DropTrackContract
import DropTrackLive
import Foundation

/// What the module runs once JavaScript configured it: a `LiveActivitySync` over ActivityKit for the
/// delivery activity, whose device credentials come from JavaScript through `CredentialRelay`, and
/// whose events become `onToken` events (fingerprints only: tokens never reach JavaScript).
@available(iOS 16.2, *)
actor DropTrackSession {
    private let sendEvent: DropTrackSendEvent
    private let credentials: CredentialRelay
    /// Where the ledgers live (Application Support on a phone).
    private let ledgerBase: @Sendable () throws -> URL
    /// The iOS version the sync's host reports (the phone's own; tests set one).
    private let osVersion: String
    private var sync: LiveActivitySync?

    init(
        credentialTimeout: Duration = .seconds(30),
        ledgerBase: @escaping @Sendable () throws -> URL = {
            try FileManager.default.url(
                for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        },
        osVersion: String = DeviceFacts.systemVersion,
        sendEvent: @escaping DropTrackSendEvent
    ) {
        self.sendEvent = sendEvent
        self.ledgerBase = ledgerBase
        self.osVersion = osVersion
        credentials = CredentialRelay(timeout: credentialTimeout) { reason in
            sendEvent("onCredentialNeeded", ["reason": reason])
        }
    }

    /// Starts the sync for these settings, replacing one started before (another user signed in), and
    /// reconciles once, as the app does at launch.
    func configure(_ settings: SyncSettings) async throws {
        let credentials = self.credentials
        let api = HTTPDeviceAPI(baseURL: settings.serverURL, userID: settings.userID) {
            try await credentials.credential()
        }
        let directory: URL
        do {
            directory = settings.ledgerDirectory(under: try ledgerBase())
        } catch {
            throw DropTrackExpoError("cannot reach Application Support for the sync's ledger (\(type(of: error)))")
        }
        let sendEvent = self.sendEvent
        // The delivery type, and a patched expo-widgets' activities, whose tokens the sync registers by activityId.
        let host = CombinedLiveActivityHost(
            primary: ActivityKitHost<DeliveryAttributes>(placeholder: Self.placeholder, osVersion: osVersion),
            others: [ActivityKitHost<LiveActivityAttributes>(osVersion: osVersion)])
        let sync = LiveActivitySync(
            host: host, api: api, ledger: FileRegistrationLedger(directory: directory),
            configuration: LiveActivitySyncConfiguration(
                deviceID: settings.deviceID, environment: settings.environment,
                onEvent: { event in
                    if let body = Self.tokenEvent(event) { sendEvent("onToken", body) }
                    if let line = Self.logLine(event) { print("DropTrack: \(line)") }
                },
                pushToStartPlaceholder: settings.pushToStartPlaceholder))
        // Swapped before any suspension, so two configure calls at once leave one sync running.
        let replaced = self.sync
        self.sync = sync
        await replaced?.stop()
        await sync.start()
        Task { await sync.reconcile() }
    }

    /// JavaScript's answer to `onCredentialNeeded`.
    func supplyCredential(_ credential: String) async {
        await credentials.supply(credential)
    }

    /// Compares the phone with the server now; throws the server's answer when it could not be asked.
    func reconcile() async throws -> [String: any Sendable] {
        guard let sync else { throw DropTrackExpoError.notConfigured }
        let outcome = await sync.reconcile()
        if let failure = outcome.failure {
            throw DropTrackExpoError("could not reconcile with the server: \(failure)")
        }
        return ["endedLocally": outcome.endedLocally, "reportedLost": outcome.reportedLost]
    }

    /// Refreshes the device facts with the server (the person may have changed the Live Activities setting).
    func appBecameActive() async {
        await sync?.reconcile()
    }

    func stop() async {
        await sync?.stop()
        sync = nil
    }

    /// The iOS 17.x placeholder: a delivery naming the reserved id, dismissed before it is drawn.
    static var placeholder: PlaceholderStart<DeliveryAttributes>? {
        try? PlaceholderStart(
            makeAttributes: { DeliveryAttributes(orderId: $0) },
            state: DeliveryAttributes.ContentState(
                status: "", progress: 0, eta: Date(), stopsRemaining: 0, courierName: "", riderReassigned: false))
    }

    /// The app's log line for what the person's phone cannot do without the app's help (the iOS 17.x
    /// token), said once per launch; nil for the rest, which `onToken` carries.
    static func logLine(_ event: LiveActivitySyncEvent) -> String? {
        switch event {
        case .pushToStartWithheld(let osVersion):
            LiveActivitySyncEvent.pushToStartWithheldExplanation(osVersion: osVersion)
        case .placeholderFailed(let error): "the iOS 17.x placeholder failed: \(error.message)"
        default: nil
        }
    }

    /// The `onToken` event of a sync event, for the events about a token; names it by fingerprint only.
    static func tokenEvent(_ event: LiveActivitySyncEvent) -> [String: any Sendable]? {
        guard case .registered(let registration) = event else { return nil }
        var body: [String: any Sendable] = ["fingerprint": registration.token.server, "status": "registered"]
        switch registration.kind {
        case .pushToStart: body["kind"] = "push_to_start"
        case .activity:
            body["kind"] = "activity"
            body["activityId"] = registration.subject
        }
        return body
    }
}
