import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackEmulators
import DropTrackProviders
import DropTrackStore
import Foundation

/// The server's core (registry, dispatcher, scheduler) wired to real APNs and FCM emulators over
/// TLS, with a SQLite (or memory) store in a temp folder. Two apps: `app1` and `app2`.
final class ServerHarness: Sendable {
    let apns: APNsHarness
    let fcm: FCMHarness
    let directory: String
    let configuration: ServerConfiguration
    let store: any DeliveryStore
    let registry: ActivityRegistry
    let dispatcher: Dispatcher
    let metrics = MetricsRegistry()
    let events = EventBus()
    let clock: any WallClock

    init(
        engine: StoreEngine = .sqlite, clock: any WallClock = SystemWallClock(),
        tweak: (inout ServerConfiguration) -> Void = { _ in }
    )
        throws
    {
        apns = try APNsHarness()
        fcm = try FCMHarness()
        self.clock = clock
        directory = makeTemporaryDirectory("server")
        let keyFile = directory + "/AuthKey.p8"
        try apns.key.pkcs8PEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let accountFile = directory + "/service-account.json"
        try Data(fcm.accountJSON).write(to: URL(fileURLWithPath: accountFile))
        func app(_ id: String) -> AppConfiguration {
            AppConfiguration(
                id: id, bundleId: APNsHarness.bundleID,
                apns: .init(
                    keyFile: keyFile, keyId: APNsHarness.keyID, teamId: APNsHarness.teamID, environment: "sandbox"),
                fcm: .init(serviceAccountFile: accountFile), apiKeyHashes: [AppConfiguration.hash(of: "key-\(id)")],
                schemas: [
                    "ScoreAttributes": AttributesSchema(
                        contentState: [
                            "home": .init(type: "integer"), "away": .init(type: "integer"),
                            "period": .init(type: "string", values: ["first", "second", "final"]),
                            "kickoff": .init(type: "date", optional: true),
                        ]),
                    "TimerAttributes": AttributesSchema(
                        contentState: ["label": .init(type: "string")], output: "expo-widgets",
                        widgetName: "TimerWidget"),
                ])
        }
        var configuration = ServerConfiguration(
            listen: "127.0.0.1:0", store: "memory", apps: [app("app1"), app("app2")],
            apnsHost: "127.0.0.1:\(apns.port)",
            fcmBaseURL: "https://127.0.0.1:\(fcm.port)", caFile: TestPKI.shared.caFile, backoffBaseSeconds: 0.05,
            backoffMaxSeconds: 0.2, schedulerIntervalSeconds: 0.1)
        tweak(&configuration)
        self.configuration = configuration
        store = try engine.make()
        let transport = try ProviderTransport(configuration: configuration, logger: .disabled)
        dispatcher = Dispatcher(
            store: store, configuration: configuration, transport: transport, clock: clock, metrics: metrics,
            events: events,
            logger: .disabled)
        let dispatcher = self.dispatcher
        registry = ActivityRegistry(
            store: store, configuration: configuration, clock: clock, wake: { dispatcher.wake() })
        dispatcher.start()
    }

    func stop() {
        dispatcher.stop(timeout: .seconds(2))
        apns.stop()
        fcm.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Waits until the outbox is empty and nothing is in flight (bounded).
    func drain(timeout: Duration = .seconds(20)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let depth = try store.transaction { try $0.outboxStats().depth }
            if depth == 0 && dispatcher.inFlight == 0 { return }
            usleep(10_000)
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the outbox did not drain"])
    }

    func json(_ text: String) -> JSONValue { try! JSONValue.parse(text) }
}
