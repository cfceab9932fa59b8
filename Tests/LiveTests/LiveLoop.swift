import DropTrackContract
import DropTrackDispatch
import DropTrackEmulators
import DropTrackLive
import DropTrackTesting
import Foundation
import Synchronization

/// The whole server over real HTTP (its APNs emulator over TLS) delivering to a simulated iPhone, and
/// `LiveActivitySync` keeping the two in step with a device credential, which the app gets as a real
/// one does: from its backend, which holds the API key and asks `POST /v1/device-credentials`.
final class LiveLoop: Sendable {
    static let userID = "user-1"
    static let deviceID = "iphone-live"

    let phone: IPhoneSimulator
    let ledgerDirectory: URL
    private let servers = Mutex<[ServerHarness]>([])
    /// While off, pushes the APNs emulator accepted never reach the phone (it is offline).
    let online = Flag()
    /// Credentials the backend minted for the app, so a test can see a refresh.
    let credentialsMinted = Atomic<Int>(0)
    /// How long the credentials the backend mints last, in seconds.
    let credentialLifetime: Int

    init(phone: IPhoneSimulator = IPhoneSimulator(deviceID: LiveLoop.deviceID), credentialLifetime: Int = 600) {
        self.phone = phone
        self.credentialLifetime = credentialLifetime
        ledgerDirectory = URL(fileURLWithPath: makeTemporaryDirectory("live-ledger"))
    }

    /// Starts a server (on `port` when given) whose APNs emulator delivers to the phone.
    @discardableResult
    func startServer(
        port: Int? = nil, configure: @escaping (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> ServerHarness {
        let server = try ServerHarness(deviceKeys: true) { configuration in
            if let port { configuration.listen = "127.0.0.1:\(port)" }
            configure(&configuration)
        }
        let phone = self.phone
        let online = self.online
        server.apns.emulator.addDeliveryListener { delivery in
            guard online.isOn, let token = delivery.token, phone.tokens.contains(token) else { return }
            phone.receive(token: token, payload: delivery.payload, priority: delivery.priority)
        }
        servers.withLock { $0.append(server) }
        return server
    }

    var server: ServerHarness { servers.withLock { $0.last! } }

    /// A sync as the app makes at launch, with the file ledger every launch shares.
    func sync(
        port: Int? = nil, phone: IPhoneSimulator? = nil, ledger: URL? = nil, pushToStartPlaceholder: Bool = false
    ) -> LiveActivitySync {
        let api = HTTPDeviceAPI(
            baseURL: URL(string: "http://127.0.0.1:\(port ?? server.port)")!, userID: Self.userID,
            credential: { [self] in try self.credentialFromBackend() })
        return LiveActivitySync(
            host: (phone ?? self.phone).liveActivityHost(), api: api,
            ledger: FileRegistrationLedger(directory: ledger ?? ledgerDirectory),
            configuration: LiveActivitySyncConfiguration(
                deviceID: Self.deviceID, environment: .sandbox,
                retry: RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200)),
                pushToStartPlaceholder: pushToStartPlaceholder))
    }

    /// What the app's backend does when its app asks for a credential: mint one with its API key.
    func credentialFromBackend() throws -> String {
        let credential = try credential(user: Self.userID, lifetime: credentialLifetime)
        credentialsMinted.add(1, ordering: .relaxed)
        return credential
    }

    struct CredentialRefused: Error { var status: Int }

    /// A device credential for `user`, lasting `lifetime` seconds, as the backend mints one.
    func credential(user: String, lifetime: Int = 600) throws -> String {
        let minted = try server.call(
            "POST", "/v1/device-credentials", #"{"userId":"\#(user)","ttlSeconds":\#(lifetime)}"#)
        guard minted.status == 201, let credential = minted.body["credential"]?.stringValue else {
            throw CredentialRefused(status: minted.status)
        }
        return credential
    }

    /// The backend starts a delivery activity for the user (API key), which push-starts on the phone.
    func startDelivery(_ activityID: String) throws -> APIAnswer {
        try server.call(
            "POST", "/v1/activities",
            #"""
            {"activityId":"\#(activityID)","userId":"\#(Self.userID)","attributesType":"DeliveryAttributes",
             "attributes":{"orderId":"\#(activityID)"},
             "event":{"type":"delivery.step","data":{"step":"placed","courierName":"Sam"}},
             "alert":{"title":"Order placed","body":"Sam is on it"},"idempotencyKey":"start-\#(activityID)"}
            """#)
    }

    func step(_ activityID: String, _ step: String) throws -> APIAnswer {
        try server.call(
            "POST", "/v1/activities/\(activityID)/events", #"{"type":"delivery.step","data":{"step":"\#(step)"}}"#)
    }

    /// The status the phone shows for the activity.
    func status(_ activityID: String) -> String? {
        phone.activities.first { $0.attributes["orderId"]?.stringValue == activityID }?.contentState["status"]?
            .stringValue
    }

    /// Requests the server answered on the token routes, from its metrics.
    func tokenRequests() throws -> Int {
        try server.call("GET", "/metrics", key: nil).text.split(separator: "\n").filter {
            $0.hasPrefix("droptrack_http_requests_total{") && $0.contains("route=\"/v1/tokens/")
        }.reduce(0) { $0 + (Int($1.split(separator: " ").last ?? "") ?? 0) }
    }

    func stop() {
        for server in servers.withLock({ $0 }) { server.stop() }
        try? FileManager.default.removeItem(at: ledgerDirectory)
    }

    /// Whether the server on this branch has a route: it answers anything but 404 `no_route`. The guarded
    /// tests use it, so they run as soon as the route lands.
    static func serverHas(_ method: String, _ path: String) -> Bool {
        guard let server = try? ServerHarness() else { return false }
        defer { server.stop() }
        guard let answer = try? server.call(method, path, method == "POST" ? "{}" : nil) else { return false }
        return !(answer.status == 404 && answer.errorCode == "no_route")
    }
}

extension LiveActivitySync {
    /// Registrations the server accepted, by kind and subject.
    func registered(_ kind: Registration.Kind, _ subject: String) -> [Registration] {
        history.compactMap {
            if case .registered(let registration) = $0, registration.kind == kind, registration.subject == subject {
                return registration
            }
            return nil
        }
    }

    func count(_ matching: (LiveActivitySyncEvent) -> Bool) -> Int { history.filter(matching).count }
}

/// A switch several threads read.
final class Flag: Sendable {
    private let state = Mutex(true)
    var isOn: Bool {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
