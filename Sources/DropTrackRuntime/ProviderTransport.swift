import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackDispatch
import DropTrackModel
import DropTrackProviders
import DropTrackWire
import Foundation
import Synchronization

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
    /// The dispatcher's view of either provider's answer.
    init(_ answer: some ProviderAnswer) {
        self.init(
            status: answer.status, reason: answer.reasonName, remedy: answer.remedy, explanation: answer.explanation,
            latency: answer.latency, reach: answer.reach)
    }
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
                    let tokens = try APNsProviderToken(
                        key: key, keyID: settings.keyId, teamID: settings.teamId,
                        logger: logger.with(["app": app.id]))
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
        guard let result = waitForCallback(timeout: .seconds(30), call) else {
            return .failure(
                ChannelFailure(status: 0, reason: "timeout", explanation: "APNs did not answer within 30 s"))
        }
        return result.mapError { error in
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
