import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackEmulators
import DropTrackHTTP1
import DropTrackModel
import DropTrackRuntime
import DropTrackWire
import Foundation
import Synchronization

/// Why the demo could not start.
public struct DemoError: Error, CustomStringConvertible, Sendable {
    /// What went wrong and what to do.
    public var message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The whole loop in one process: development keys, the APNs and FCM emulators, the server on
/// SQLite, a simulated iPhone and a simulated Android phone registered for user `demo`, and the
/// dashboard. Pushes go over real HTTP/2 and TLS to the emulators, which hand them to the phones.
public final class DemoStack: Sendable {
    /// The app id and user the demo runs as.
    public static let appID = "demo"
    public static let userID = "demo"

    /// The keys, emulators, server and phones.
    public let keys: DevelopmentKeys
    public let apns: APNsEmulator
    public let fcm: FCMEmulator
    public let server: DropTrackServer
    public let iphone: IPhoneSimulator
    public let android: AndroidLiveUpdatePhone
    /// The Android phone's FCM registration token (in-process only).
    let androidToken: String
    /// The demo app's API key (printed once; only its hash is in the configuration).
    public let apiKey: String
    /// Order controls and the deliberately broken pushes.
    public let driver: DemoDriver
    /// Where the keys and the SQLite file live.
    public let dataDirectory: String
    let temporary: Bool
    let logger: Logger
    /// The simulated Android app's and the backend's way to the API.
    let api: DemoAPI
    /// The simulated iPhone's app: DropTrackLive, registering its tokens over HTTP with a device credential.
    public let iphoneApp: DemoIPhoneApp

    /// Builds and starts everything. `listen` is the dashboard and API address; `data` keeps the
    /// store between runs (a temporary folder, removed on `stop`, when nil).
    public init(listen: String = "127.0.0.1:8787", data: String? = nil, logger: Logger) throws {
        self.logger = logger
        temporary = data == nil
        dataDirectory = data ?? NSTemporaryDirectory() + "droptrack-demo-\(UUID().uuidString.prefix(8))"
        do {
            // It holds the store and the keys: owner-only, whatever the umask.
            try PrivateFile.makeDirectory(dataDirectory, mode: 0o700)
        } catch {
            throw DemoError("cannot create \(dataDirectory): \(error)")
        }
        let keys = try DevelopmentKeys.write(
            to: dataDirectory + "/keys", bundleID: "com.droptrack.demo", overwrite: true)
        self.keys = keys
        let tls = try TLSContext(
            serverCertificateFile: keys.certificateFile, privateKeyFile: keys.certificateKeyFile,
            alpn: ["h2", "http/1.1"])
        apns = APNsEmulator(
            configuration: APNsEmulatorConfiguration(
                teamID: keys.teamID, keys: [keys.keyID: try PublicKey(pemFile: keys.apnsPublicKeyFile)],
                bundleIDs: [keys.bundleID]))
        fcm = FCMEmulator(
            configuration: FCMEmulatorConfiguration(
                projectID: keys.projectID, serviceAccountKey: try PublicKey(pemFile: keys.serviceAccountPublicKeyFile),
                clientEmail: keys.clientEmail))
        let apnsPort = try apns.start(tls: tls)
        let fcmPort = try fcm.start(tls: tls)
        try keys.pointServiceAccount(at: "https://127.0.0.1:\(fcmPort)/token")

        let deviceKeyFile = try Self.writeDeviceSigningKey(into: keys.directory)
        let key = AppConfiguration.newAPIKey(app: Self.appID)
        apiKey = key.key
        let configuration = ServerConfiguration(
            listen: listen, store: "sqlite:\(dataDirectory)/droptrack.sqlite",
            apps: [
                AppConfiguration(
                    id: Self.appID, bundleId: keys.bundleID,
                    apns: .init(
                        keyFile: keys.apnsKeyFile, keyId: keys.keyID, teamId: keys.teamID, environment: "sandbox"),
                    fcm: .init(serviceAccountFile: keys.serviceAccountFile), apiKeyHashes: [key.hash],
                    deviceKeys: [.init(kid: Self.deviceKeyID, privateKeyFile: deviceKeyFile)])
            ],
            apnsHost: "127.0.0.1:\(apnsPort)", fcmBaseURL: "https://127.0.0.1:\(fcmPort)", caFile: keys.caFile,
            requestsPerSecondPerKey: 0, schedulerIntervalSeconds: 5)
        let control = DemoControl()
        server = try DropTrackServer(
            configuration: configuration, logger: logger, extensions: [DemoRoutes(control: control)],
            diagnosisSources: [DemoPhoneDrops(control: control)])
        let api = DemoAPI(server: server, key: key.key)
        self.api = api
        let events = server.events
        let apnsEmulator = apns
        // APNs knows the tokens it issues to the phone; registering them with the server is the app's part.
        let simulator = IPhoneSimulator(deviceID: DemoIPhoneApp.deviceID) { event in
            switch event {
            case .pushToStart(let type, let token), .activity(_, let type, _, let token):
                apnsEmulator.registerToken(token, environment: .sandbox, attributesType: type)
            }
        }
        for (type, token) in simulator.pushToStartTokensByType {
            apns.registerToken(token, environment: .sandbox, attributesType: type)
        }
        iphone = simulator
        iphoneApp = DemoIPhoneApp(
            phone: simulator, serverURL: { [server] in URL(string: "http://\(Self.ownAddress(server))")! },
            ledgerDirectory: URL(fileURLWithPath: dataDirectory + "/iphone-app"),
            backend: { try Self.mintDeviceCredential(api) },
            onLog: { line in
                events.publish(
                    app: Self.appID, event: "app",
                    payload: .object(["kind": .string(line.kind), "text": .string(line.text)]))
            })
        android = AndroidLiveUpdatePhone()
        androidToken = "demo-pixel:APA91b" + String(hexEncoding: (0..<40).map { _ in UInt8.random(in: 0...255) })
        driver = DemoDriver(api: api, transport: server.transport, bundleID: keys.bundleID)
        let iphone = self.iphone
        let android = self.android
        let androidToken = self.androidToken
        apns.addDeliveryListener { delivery in
            let before = iphone.drops.count
            if let channel = delivery.channelID {
                guard iphone.channels.contains(channel) else { return }
                iphone.receiveBroadcast(channelID: channel, payload: delivery.payload, priority: delivery.priority)
            } else {
                guard let token = delivery.token, iphone.tokens.contains(token) else { return }
                iphone.receive(token: token, payload: delivery.payload, priority: delivery.priority)
            }
            for drop in iphone.drops.dropFirst(before) {
                events.publish(app: Self.appID, event: "drop", payload: Self.dropJSON(drop, device: "iphone"))
            }
            events.publish(app: Self.appID, event: "device", payload: .object(["device": .string("iphone")]))
        }
        fcm.addDeliveryListener { delivery in
            guard delivery.token == androidToken else { return }
            let before = android.drops.count
            android.receive(data: delivery.data, priority: delivery.priority)
            for drop in android.drops.dropFirst(before) {
                events.publish(app: Self.appID, event: "drop", payload: Self.dropJSON(drop))
            }
            events.publish(app: Self.appID, event: "device", payload: .object(["device": .string("android")]))
        }
        control.attach(self)
        _ = try server.start()
        if DemoGuard.isBeyondLoopback(listen) {
            // Loud on purpose: the dashboard has no key, and its API key is printed.
            let warning =
                "WARNING: the demo listens on \(listen), beyond this machine, and its dashboard has no key. It answers browsers only at localhost, 127.0.0.1 or the address given; use --listen 127.0.0.1:PORT unless you mean to expose it."
            FileHandle.standardError.write(Data((warning + "\n").utf8))
            logger.warning("demo.listen_beyond_loopback", ["listen": listen, "fix": "--listen 127.0.0.1:PORT"])
        }
        // The app opens once the server answers; its sync registers the phone's tokens from there.
        iphoneApp.runWithoutWaiting { await $0.launch() }
        fcm.registerToken(androidToken)
        api.post(
            "/v1/tokens/fcm",
            [
                "userId": .string(Self.userID), "deviceId": .string("demo-pixel"), "token": .string(androidToken),
                "device": Self.facts(android.settings),
            ])
    }

    /// What the simulated Android app reports with its token.
    static func facts(_ settings: AndroidDeviceSettings) -> JSONValue {
        .object([
            "osVersion": .string("16"), "manufacturer": .string("Google"),
            "notificationsEnabled": .bool(settings.notificationPermissionGranted),
            "canPostPromoted": .bool(settings.promotedPermissionGranted),
            "userAllowsLiveUpdates": .bool(settings.userAllowsLiveUpdates),
        ])
    }

    /// Registers every token of both phones again with their current facts, as the apps do when
    /// they see a switch change; the server keeps the news with each token.
    func reportDeviceFacts() {
        iphoneApp.runWithoutWaiting { await $0.refreshFacts() }
        api.post(
            "/v1/tokens/fcm",
            [
                "userId": .string(Self.userID), "deviceId": .string("demo-pixel"), "token": .string(androidToken),
                "device": Self.facts(android.settings),
            ])
    }

    /// The dashboard's address.
    public var url: String {
        "http://\(parseListenAddress(server.configuration.listen)?.host ?? "127.0.0.1"):\(server.port)/"
    }

    /// Closes the iPhone app, drains the server, stops the emulators, and removes a temporary data folder.
    public func stop() {
        iphoneApp.close()
        server.shutdown(timeout: .seconds(5))
        apns.stop()
        fcm.stop()
        if temporary { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }

    static func dropJSON(_ drop: IPhoneDrop, device: String) -> JSONValue {
        .object([
            "device": .string(device), "event": .string(drop.event), "reason": .string(drop.reason),
            "trap": drop.trap.map { .string($0) } ?? .null, "token": .string(drop.token),
            "activityId": drop.activityId.map { .string($0) } ?? .null,
        ])
    }

    static func dropJSON(_ drop: AndroidDrop) -> JSONValue {
        .object([
            "device": .string("android"), "reason": .string(drop.reason),
            "trap": drop.trap.map { .string($0) } ?? .null,
            "activityId": drop.activityId.map { .string($0) } ?? .null,
        ])
    }
}

/// The simulated phones' drops, for the server's diagnosis of an activity.
struct DemoPhoneDrops: DiagnosisSource {
    let control: DemoControl

    func drops(app: String, activityId: String, deviceFingerprints: Set<String>) -> [JSONValue] {
        guard app == DemoStack.appID, let demo = control.demo else { return [] }
        let iphone = demo.iphone.drops.filter { deviceFingerprints.contains($0.token) }.map {
            DemoStack.dropJSON($0, device: "iphone")
        }
        let android = demo.android.drops.filter { $0.activityId == activityId }.map(DemoStack.dropJSON)
        return iphone + android
    }
}

/// Lets the dashboard routes, built before the stack exists, reach it once it does.
final class DemoControl: Sendable {
    private let stack = Mutex<DemoStack?>(nil)
    func attach(_ demo: DemoStack) { stack.withLock { $0 = demo } }
    var demo: DemoStack? { stack.withLock { $0 } }
}
