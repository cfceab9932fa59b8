import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackEmulators
import DropTrackProviders
import DropTrackRuntime
import DropTrackStore
import Foundation

/// The whole server (`DropTrackServer`: registry, dispatcher, HTTP API on a free port) wired to real
/// APNs and FCM emulators over TLS, with a SQLite (or memory) store in a temp folder. Two apps,
/// `app1` and `app2`, whose API keys are `key-app1` and `key-app2`. The scheduler loop runs only
/// when asked, so tests with a manual clock drive it themselves.
package final class ServerHarness: Sendable {
    package let apns: APNsHarness
    package let fcm: FCMHarness
    package let directory: String
    package let configuration: ServerConfiguration
    package let server: DropTrackServer
    package let logs = InMemoryLogHandler()
    package let clock: any WallClock
    /// With `deviceKeys`: the backends' device-credential keys by app (kid `<app>-backend`, public half
    /// registered); app1 also has a DropTrack-held signing key, kid `dt-app1`.
    package let deviceKeys: [String: PrivateKey]
    package var store: any DeliveryStore { server.store }
    package var registry: ActivityRegistry { server.registry }
    package var dispatcher: Dispatcher { server.dispatcher }
    package var metrics: MetricsRegistry { server.metrics }
    package var events: EventBus { server.events }
    package var port: Int { server.port }

    package init(
        engine: StoreEngine = .sqlite, clock: any WallClock = SystemWallClock(), scheduler: Bool = false,
        eventStreams: EventStreamLimits? = nil, deviceKeys withDeviceKeys: Bool = false,
        store: (any DeliveryStore)? = nil, webhookPollInterval: Duration = .milliseconds(250),
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
        var deviceKeys: [String: PrivateKey] = [:]
        var deviceKeyEntries: [String: [AppConfiguration.DeviceKey]] = [:]
        if withDeviceKeys {
            for id in ["app1", "app2"] {
                let key = try PrivateKey.generate(.es256)
                let file = directory + "/\(id)-backend.pem"
                try key.publicKeyPEM.write(toFile: file, atomically: true, encoding: .utf8)
                deviceKeys[id] = key
                deviceKeyEntries[id] = [.init(kid: "\(id)-backend", publicKeyFile: file)]
            }
            let signing = directory + "/app1-device-dt-app1.p8"
            try PrivateKey.generate(.es256).pkcs8PEM.write(toFile: signing, atomically: true, encoding: .utf8)
            deviceKeyEntries["app1", default: []].append(.init(kid: "dt-app1", privateKeyFile: signing))
        }
        self.deviceKeys = deviceKeys
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
                ], deviceKeys: deviceKeyEntries[id])
        }
        var configuration = ServerConfiguration(
            listen: "127.0.0.1:0", store: "memory", apps: [app("app1"), app("app2")],
            apnsHost: "127.0.0.1:\(apns.port)",
            fcmBaseURL: "https://127.0.0.1:\(fcm.port)", caFile: TestPKI.shared.caFile, backoffBaseSeconds: 0.05,
            backoffMaxSeconds: 0.2, schedulerIntervalSeconds: 0.1)
        tweak(&configuration)
        self.configuration = configuration
        server = try DropTrackServer(
            configuration: configuration, clock: clock,
            logger: Logger(handler: logs, minimumLevel: .debug), store: try store ?? engine.make(), httpThreads: 2,
            heartbeat: .milliseconds(200), eventStreams: eventStreams, webhookPollInterval: webhookPollInterval)
        try server.start(scheduler: scheduler)
    }

    package func stop() {
        server.shutdown(timeout: .seconds(2))
        apns.stop()
        fcm.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Waits until the outbox is empty and nothing is in flight (bounded).
    package func drain(timeout: Duration = .seconds(20)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let depth = try store.transaction { try $0.outboxStats().depth }
            if depth == 0 && dispatcher.inFlight == 0 { return }
            usleep(10_000)
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the outbox did not drain"])
    }

    package func json(_ text: String) -> JSONValue { try! JSONValue.parse(text) }
}
