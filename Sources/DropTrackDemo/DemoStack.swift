import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackEmulators
import DropTrackHTTP1
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

/// The simulated iPhone, for the app callbacks that read its settings (set once it exists).
final class IPhoneReference: Sendable {
    let simulator = Mutex<IPhoneSimulator?>(nil)

    /// The facts the app reports with a token, from the phone's current settings.
    var facts: JSONValue { DemoStack.facts(simulator.withLock { $0 }?.settings ?? IPhoneSettings()) }
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
    /// The simulated apps' way to the API.
    let api: DemoAPI

    /// Builds and starts everything. `listen` is the dashboard and API address; `data` keeps the
    /// store between runs (a temporary folder, removed on `stop`, when nil).
    public init(listen: String = "127.0.0.1:8787", data: String? = nil, logger: Logger) throws {
        self.logger = logger
        temporary = data == nil
        dataDirectory = data ?? NSTemporaryDirectory() + "droptrack-demo-\(UUID().uuidString.prefix(8))"
        do {
            try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw DemoError("cannot create \(dataDirectory): \(error.localizedDescription)")
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

        let key = AppConfiguration.newAPIKey(app: Self.appID)
        apiKey = key.key
        let configuration = ServerConfiguration(
            listen: listen, store: "sqlite:\(dataDirectory)/droptrack.sqlite",
            apps: [
                AppConfiguration(
                    id: Self.appID, bundleId: keys.bundleID,
                    apns: .init(
                        keyFile: keys.apnsKeyFile, keyId: keys.keyID, teamId: keys.teamID, environment: "sandbox"),
                    fcm: .init(serviceAccountFile: keys.serviceAccountFile), apiKeyHashes: [key.hash])
            ],
            apnsHost: "127.0.0.1:\(apnsPort)", fcmBaseURL: "https://127.0.0.1:\(fcmPort)", caFile: keys.caFile,
            requestsPerSecondPerKey: 0, schedulerIntervalSeconds: 5)
        let control = DemoControl()
        server = try DropTrackServer(
            configuration: configuration, logger: logger, extensions: [DemoRoutes(control: control)],
            diagnosisSources: [DemoPhoneDrops(control: control)])
        let api = DemoAPI(server: server, key: key.key)
        self.api = api
        // The iPhone app reads its switches from the phone it runs on, which exists only below.
        let phone = IPhoneReference()
        let events = server.events
        let apnsEmulator = apns
        let simulator = IPhoneSimulator(deviceID: "demo-iphone") { event in
            switch event {
            case .pushToStart(let type, let token):
                apnsEmulator.registerToken(token, environment: .sandbox, attributesType: type)
                api.post(
                    "/v1/tokens/push-to-start",
                    [
                        "userId": .string(Self.userID), "deviceId": .string("demo-iphone"), "token": .string(token),
                        "environment": .string("sandbox"), "attributesType": .string(type),
                        "device": phone.facts,
                    ])
            case .activity(_, let type, let attributes, let token):
                // The app knows its server's activity by the order id, which the demo uses as the activity id.
                apnsEmulator.registerToken(token, environment: .sandbox, attributesType: type)
                guard let orderID = attributes["orderId"]?.stringValue else { return }
                api.post(
                    "/v1/tokens/activity",
                    [
                        "activityId": .string(orderID), "deviceId": .string("demo-iphone"), "token": .string(token),
                        "environment": .string("sandbox"), "device": phone.facts,
                    ])
            }
        }
        iphone = simulator
        phone.simulator.withLock { $0 = simulator }
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
                events.publish(
                    app: Self.appID, event: "drop",
                    payload: .object([
                        "device": .string("android"), "reason": .string(drop.reason),
                        "trap": drop.trap.map { .string($0) } ?? .null,
                        "activityId": drop.activityId.map { .string($0) } ?? .null,
                    ]))
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
        iphone.registerPushToStartTokens()
        fcm.registerToken(androidToken)
        api.post(
            "/v1/tokens/fcm",
            [
                "userId": .string(Self.userID), "deviceId": .string("demo-pixel"), "token": .string(androidToken),
                "device": Self.facts(android.settings),
            ])
    }

    /// What the simulated iPhone app reports with each token, as a real app should: its OS and the
    /// Live Activities switches (`ActivityAuthorizationInfo`).
    static func facts(_ settings: IPhoneSettings) -> JSONValue {
        .object([
            "osVersion": .string(String(settings.osVersion)),
            "areActivitiesEnabled": .bool(settings.liveActivitiesEnabled),
            "frequentPushesEnabled": .bool(settings.frequentUpdates),
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
        iphone.registerPushToStartTokens()
        iphone.reportUpdateTokens()
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

    /// Drains the server, stops the emulators, and removes a temporary data folder.
    public func stop() {
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
}

/// The simulated phones' drops, for the server's diagnosis of an activity.
struct DemoPhoneDrops: DiagnosisSource {
    let control: DemoControl

    func drops(app: String, activityId: String, deviceFingerprints: Set<String>) -> [JSONValue] {
        guard app == DemoStack.appID, let demo = control.demo else { return [] }
        let iphone = demo.iphone.drops.filter { deviceFingerprints.contains($0.token) }.map {
            DemoStack.dropJSON($0, device: "iphone")
        }
        let android = demo.android.drops.filter { $0.activityId == activityId }.map { drop -> JSONValue in
            .object([
                "device": .string("android"), "reason": .string(drop.reason),
                "trap": drop.trap.map { .string($0) } ?? .null, "activityId": .string(activityId),
            ])
        }
        return iphone + android
    }
}

/// Lets the dashboard routes, built before the stack exists, reach it once it does.
final class DemoControl: Sendable {
    private let stack = Mutex<DemoStack?>(nil)
    func attach(_ demo: DemoStack) { stack.withLock { $0 = demo } }
    var demo: DemoStack? { stack.withLock { $0 } }
}

/// The demo app's calls to the server's API, in process, through the same router real requests
/// take (authentication, validation and logging included).
struct DemoAPI: Sendable {
    let server: DropTrackServer
    let key: String

    /// One call; returns the status and the JSON answer.
    @discardableResult
    func call(_ method: String, _ path: String, _ body: JSONValue? = nil) -> (status: Int, body: JSONValue) {
        // The app's calls come from this machine, so they name the demo's own address (DemoGuard).
        var headers = ["authorization": "Bearer \(key)", "host": "127.0.0.1:\(server.port)"]
        if body != nil { headers["content-type"] = "application/json" }
        let request = HTTPRequest(
            method: method, path: path, headers: headers, body: body.map { $0.serialized() } ?? [])
        guard case .response(let response) = server.router.handle(request) else { return (0, .null) }
        return (response.status, (try? JSONValue.parse(bytes: response.body)) ?? .null)
    }

    func post(_ path: String, _ body: [String: JSONValue]) {
        call("POST", path, .object(body))
    }
}
