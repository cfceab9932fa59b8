import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackProviders
import DropTrackWire
import Foundation
import Synchronization

/// The outcome of one send, provider-neutral: what the dispatcher needs to decide the next step.
public struct SendResult: Sendable {
    /// HTTP status, 0 without an answer.
    public var status: Int
    /// `ok`, the provider's reason, or a transport code.
    public var reason: String
    /// What to do next.
    public var remedy: PushRemedy
    /// One line for a person.
    public var explanation: String
    public var latency: Duration
    /// Whether the push reached the provider: a start that may have is never sent again, and an
    /// attempt that never left does not count against `maxAttempts`.
    public var reach: SendReach

    public init(
        status: Int, reason: String, remedy: PushRemedy, explanation: String, latency: Duration,
        reach: SendReach = .answered
    ) {
        self.status = status
        self.reason = reason
        self.remedy = remedy
        self.explanation = explanation
        self.latency = latency
        self.reach = reach
    }

    public var isSuccess: Bool { remedy == .none }
}

/// What both providers' clients answer, as far as the dispatcher cares.
protocol ProviderAnswer {
    var status: Int { get }
    var reasonName: String { get }
    var remedy: PushRemedy { get }
    var explanation: String { get }
    var latency: Duration { get }
    var reach: SendReach { get }
}

extension APNsSendResult: ProviderAnswer {}
extension FCMSendResult: ProviderAnswer {}

extension SendResult {
    init(_ answer: some ProviderAnswer) {
        self.init(
            status: answer.status, reason: answer.reasonName, remedy: answer.remedy, explanation: answer.explanation,
            latency: answer.latency, reach: answer.reach)
    }
}

/// Where the dispatcher sends: one seam over both providers, so the worker is provider-neutral.
public protocol PushTransport: Sendable {
    /// Sends an APNs push for an app; `completion` may run on any thread.
    func send(app: String, apns push: APNsPush, completion: @escaping @Sendable (SendResult) -> Void)
    /// Sends an FCM message for an app.
    func send(app: String, fcm message: FCMMessage, completion: @escaping @Sendable (SendResult) -> Void)
    /// Creates an iOS 18 broadcast channel for an app (blocking); its id, or why not.
    func createChannel(app: String, policy: MessageStoragePolicy) -> Result<String, ChannelFailure>
    /// Deletes a broadcast channel (blocking).
    func deleteChannel(app: String, id: String) -> Result<Void, ChannelFailure>
    /// Closes connections.
    func shutdown()
    /// By provider (`apns`, `fcm`): the providers' clocks minus this machine's, as their latest
    /// `Date` headers tell, the largest in size across apps; absent until a response had one.
    var providerClockOffsets: [String: Double] { get }
}

extension PushTransport {
    public var providerClockOffsets: [String: Double] { [:] }
}

/// Why a channel-management call failed: APNs' status and reason, and what to do.
public struct ChannelFailure: Error, Sendable, CustomStringConvertible {
    public var status: Int
    public var reason: String
    public var explanation: String
    public init(status: Int, reason: String, explanation: String) {
        self.status = status
        self.reason = reason
        self.explanation = explanation
    }
    public var description: String { explanation }
}

/// The real transport: APNs and FCM clients per app, built from the configuration.
public final class ProviderTransport: PushTransport {
    /// Per app: a client for each APNs environment it can reach. One app (one key, one bundle id)
    /// serves development builds (sandbox tokens) and App Store or TestFlight builds (production
    /// tokens) alike: each token goes to its own environment's host, so neither kind is lost to
    /// `BadDeviceToken`. Broadcasts and channels use the app's configured environment.
    private let apns: [String: [APNsEnvironment: APNsClient]]
    private let apnsDefault: [String: APNsEnvironment]
    private let fcm: [String: FCMClient]

    /// Builds clients for every app that has credentials, pointed at Apple and Google or, when the
    /// configuration says so, at the emulators (`apnsHost` then takes every environment's pushes).
    public init(configuration: ServerConfiguration, logger: Logger) throws(ConfigurationError) {
        var apns: [String: [APNsEnvironment: APNsClient]] = [:]
        var apnsDefault: [String: APNsEnvironment] = [:]
        var fcm: [String: FCMClient] = [:]
        for (index, app) in configuration.apps.enumerated() {
            if let settings = app.apns, let bundleId = app.bundleId {
                do {
                    let key = try PrivateKey(pemFile: settings.keyFile, expected: .es256)
                    let tokens = try APNsProviderToken(key: key, keyID: settings.keyId, teamID: settings.teamId)
                    let environment = APNsEnvironment(name: settings.environment) ?? .sandbox
                    var endpoints: [APNsEnvironment: APNsEndpoint] = [:]
                    if let host = configuration.apnsHost {
                        guard let (name, port) = APNsEndpoint.parseHostPort(host) else {
                            throw ConfigurationError(key: "apnsHost", "apnsHost must be HOST:PORT, not '\(host)'")
                        }
                        endpoints[environment] = .custom(host: name, port: port, environment: environment)
                    } else {
                        endpoints = [.sandbox: .apple(.sandbox), .production: .apple(.production)]
                    }
                    var clients: [APNsEnvironment: APNsClient] = [:]
                    for (name, endpoint) in endpoints {
                        clients[name] = try APNsClient(
                            configuration: APNsClientConfiguration(
                                bundleID: bundleId, providerToken: tokens, endpoint: endpoint,
                                caFile: configuration.caFile,
                                requestTimeout: .seconds(configuration.providerTimeoutSeconds)),
                            logger: logger)
                    }
                    apns[app.id] = clients
                    apnsDefault[app.id] = environment
                } catch let error as ConfigurationError {
                    throw error
                } catch {
                    throw ConfigurationError(key: "apps[\(index)].apns", "app \(app.id): \(error)")
                }
            }
            if let settings = app.fcm {
                do {
                    let account = try GoogleServiceAccount(file: settings.serviceAccountFile)
                    fcm[app.id] = try FCMClient(
                        configuration: FCMClientConfiguration(
                            account: account, baseURL: configuration.fcmBaseURL ?? "https://fcm.googleapis.com",
                            caFile: configuration.caFile,
                            requestTimeout: .seconds(configuration.providerTimeoutSeconds)),
                        logger: logger)
                } catch {
                    throw ConfigurationError(key: "apps[\(index)].fcm", "app \(app.id): \(error)")
                }
            }
        }
        self.apns = apns
        self.apnsDefault = apnsDefault
        self.fcm = fcm
    }

    /// The client a push for `app` goes through: its token's environment when that can be reached,
    /// else the app's own.
    func apnsClient(app: String, tokenEnvironment: APNsEnvironment? = nil) -> APNsClient? {
        guard let clients = apns[app], let fallback = apnsDefault[app] else { return nil }
        return tokenEnvironment.flatMap { clients[$0] } ?? clients[fallback]
    }

    /// The host a push for `app` with a token of `tokenEnvironment` goes to (for tests and logs).
    public func apnsHost(app: String, tokenEnvironment: APNsEnvironment?) -> String? {
        apnsClient(app: app, tokenEnvironment: tokenEnvironment)?.configuration.endpoint.pushHost
    }

    public func send(app: String, apns push: APNsPush, completion: @escaping @Sendable (SendResult) -> Void) {
        guard let client = apnsClient(app: app, tokenEnvironment: push.tokenEnvironment) else {
            completion(
                SendResult(
                    status: 0, reason: "no_apns_credentials", remedy: .rejectRequest,
                    explanation: "app \(app) has no APNs credentials configured", latency: .zero, reach: .notSent))
            return
        }
        client.send(push) { completion(SendResult($0)) }
    }

    public func send(app: String, fcm message: FCMMessage, completion: @escaping @Sendable (SendResult) -> Void) {
        guard let client = fcm[app] else {
            completion(
                SendResult(
                    status: 0, reason: "no_fcm_credentials", remedy: .rejectRequest,
                    explanation: "app \(app) has no FCM service account configured", latency: .zero,
                    reach: .notSent))
            return
        }
        client.send(message) { completion(SendResult($0)) }
    }

    public func createChannel(app: String, policy: MessageStoragePolicy) -> Result<String, ChannelFailure> {
        guard let client = apnsClient(app: app) else { return .failure(Self.noCredentials(app)) }
        return Self.blocking { done in client.createChannel(policy: policy, completion: done) }
    }

    public func deleteChannel(app: String, id: String) -> Result<Void, ChannelFailure> {
        guard let client = apnsClient(app: app) else { return .failure(Self.noCredentials(app)) }
        return Self.blocking { done in client.deleteChannel(id, completion: done) }
    }

    static func noCredentials(_ app: String) -> ChannelFailure {
        ChannelFailure(
            status: 0, reason: "no_apns_credentials", explanation: "app \(app) has no APNs credentials configured")
    }

    /// Waits for a channel call from synchronous code (the registry and scheduler). The answer
    /// arrives on a connection thread, so this never needs the async executor.
    static func blocking<T: Sendable>(
        _ call: (@escaping @Sendable (Result<T, APNsChannelError>) -> Void) -> Void
    ) -> Result<T, ChannelFailure> {
        let box = Mutex<Result<T, ChannelFailure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        call { result in
            box.withLock {
                $0 = result.mapError { error in
                    switch error {
                    case .rejected(let answer):
                        ChannelFailure(
                            status: answer.status, reason: answer.reason?.rawValue ?? "status \(answer.status)",
                            explanation: answer.explanation)
                    case .transport, .malformedResponse:
                        ChannelFailure(status: 0, reason: "unavailable", explanation: error.description)
                    }
                }
            }
            done.signal()
        }
        guard done.wait(timeout: .now() + 30) == .success, let result = box.withLock({ $0 }) else {
            return .failure(
                ChannelFailure(status: 0, reason: "timeout", explanation: "APNs did not answer within 30 s"))
        }
        return result
    }

    public func shutdown() {
        for clients in apns.values { for client in clients.values { client.shutdown() } }
        for client in fcm.values { client.shutdown() }
    }

    public var providerClockOffsets: [String: Double] {
        func widest(_ offsets: [Double?]) -> Double? { offsets.compactMap { $0 }.max { abs($0) < abs($1) } }
        var offsets: [String: Double] = [:]
        offsets["apns"] = widest(apns.values.flatMap(\.values).map(\.providerClockOffset))
        offsets["fcm"] = widest(fcm.values.map(\.providerClockOffset))
        return offsets
    }
}

/// An in-memory transport that accepts everything and remembers it: for `serve --dry-run` style
/// runs and for exercising the dispatcher without providers.
public final class RecordingTransport: PushTransport {
    /// One send as recorded.
    public struct Sent: Sendable {
        public var app: String
        public var apns: APNsPush?
        public var fcm: FCMMessage?
    }

    private let sent = Mutex<[Sent]>([])
    private let offsets: [String: Double]

    /// Creates a transport; `providerClockOffsets` plays what the providers' Date headers said.
    public init(providerClockOffsets: [String: Double] = [:]) { offsets = providerClockOffsets }

    public var providerClockOffsets: [String: Double] { offsets }

    /// Everything sent so far.
    public var history: [Sent] { sent.withLock { $0 } }

    public func send(app: String, apns push: APNsPush, completion: @escaping @Sendable (SendResult) -> Void) {
        sent.withLock { $0.append(Sent(app: app, apns: push, fcm: nil)) }
        completion(SendResult(status: 200, reason: "ok", remedy: .none, explanation: "recorded", latency: .zero))
    }

    public func send(app: String, fcm message: FCMMessage, completion: @escaping @Sendable (SendResult) -> Void) {
        sent.withLock { $0.append(Sent(app: app, apns: nil, fcm: message)) }
        completion(SendResult(status: 200, reason: "ok", remedy: .none, explanation: "recorded", latency: .zero))
    }

    private let channels = Mutex<Set<String>>([])

    public func createChannel(app: String, policy: MessageStoragePolicy) -> Result<String, ChannelFailure> {
        let id = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        channels.withLock { _ = $0.insert(id) }
        return .success(id)
    }

    public func deleteChannel(app: String, id: String) -> Result<Void, ChannelFailure> {
        guard channels.withLock({ $0.remove(id) }) != nil else {
            return .failure(ChannelFailure(status: 404, reason: "ChannelNotRegistered", explanation: "no such channel"))
        }
        return .success(())
    }

    public func shutdown() {}
}
