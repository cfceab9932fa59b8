import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackModel
import DropTrackWire
import Foundation
import Synchronization

/// A local FCM HTTP v1: the OAuth2 token endpoint (RS256 assertions verified against the
/// service account's public key) and `messages:send` with FCM's validation and google.rpc
/// errors, scripted faults, records, and delivery to simulated phones.
public final class FCMEmulator: HTTP2ServerHandler, Sendable {
    struct State {
        var accessTokens: [String: Date] = [:]
        var registered: [String: (project: String, dead: Bool)] = [:]
        var records: RecordRing<FCMEmulatorRecord>
        var latest: [String: FCMEmulatorRecord] = [:]
        var sequence = 0
        var messages = 0
        var faults = FaultBook<FCMFaultKind>()
        var tokenExchanges = 0
    }

    /// The configuration.
    public let configuration: FCMEmulatorConfiguration
    let clock: any WallClock
    let state: Mutex<State>
    let listeners = Mutex<[@Sendable (FCMDelivery) -> Void]>([])
    private let server = Mutex<HTTP2Server?>(nil)
    let ids = IdentifierGenerator()

    /// Creates an emulator.
    public init(configuration: FCMEmulatorConfiguration, clock: any WallClock = SystemWallClock()) {
        self.configuration = configuration
        self.clock = clock
        state = Mutex(State(records: RecordRing(capacity: configuration.recordCapacity)))
    }

    /// Serves on TLS (h2 and http/1.1); returns the bound port.
    @discardableResult
    public func start(tls: TLSContext, host: String = "127.0.0.1", port: Int = 0) throws -> Int {
        let http = HTTP2Server(tls: tls, handler: self)
        let bound = try http.start(host: host, port: port)
        server.withLock { $0 = http }
        return bound
    }

    /// Stops serving.
    public func stop() {
        let http = server.withLock { server in
            defer { server = nil }
            return server
        }
        http?.stop()
    }

    /// The bound port.
    public var port: Int { server.withLock { $0?.port ?? 0 } }

    // MARK: Control

    /// Registers a registration token for a project (default: the emulator's).
    public func registerToken(_ token: String, project: String? = nil) {
        state.withLock { $0.registered[token] = (project ?? configuration.projectID, false) }
    }

    /// Marks a registration token dead: later sends get UNREGISTERED.
    public func markTokenDead(_ token: String) {
        state.withLock { $0.registered[token] = ($0.registered[token]?.project ?? configuration.projectID, true) }
    }

    /// Replaces the fault script.
    public func setFaults(_ faults: [FCMFault]) { state.withLock { $0.faults = FaultBook(faults) } }

    /// Calls `listener` for every delivered message (on a connection thread).
    public func addDeliveryListener(_ listener: @escaping @Sendable (FCMDelivery) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    /// Every record kept, oldest first.
    public var records: [FCMEmulatorRecord] { state.withLock { $0.records.elements } }

    /// Records of sends to one registration token.
    public func records(forToken token: String) -> [FCMEmulatorRecord] {
        let fingerprint = Fingerprint(of: token).value
        return state.withLock { $0.records.filter { $0.tokenFingerprint == fingerprint } }
    }

    /// The last message delivered to a token.
    public func latestDelivered(forToken token: String) -> FCMEmulatorRecord? {
        let fingerprint = Fingerprint(of: token).value
        return state.withLock { $0.latest[fingerprint] }
    }

    /// Registers a registration token given as a `DeviceToken`.
    public func registerToken(_ token: DeviceToken, project: String? = nil) {
        registerToken(token.wireValue, project: project)
    }

    /// Marks a registration token given as a `DeviceToken` dead.
    public func markTokenDead(_ token: DeviceToken) { markTokenDead(token.wireValue) }

    /// Records of sends to a registration token given as a `DeviceToken`.
    public func records(forToken token: DeviceToken) -> [FCMEmulatorRecord] { records(forToken: token.wireValue) }

    /// The last message delivered to a token given as a `DeviceToken`.
    public func latestDelivered(forToken token: DeviceToken) -> FCMEmulatorRecord? {
        latestDelivered(forToken: token.wireValue)
    }

    /// OAuth exchanges answered with a token.
    public var tokenExchanges: Int { state.withLock { $0.tokenExchanges } }

    // MARK: HTTP2ServerHandler

    public func handle(_ request: HTTP2ServerRequest, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        // Google stamps every answer with its clock; clients compare it with theirs.
        let date = HTTPHeader("date", HTTPDate.format(clock.now()))
        switch route(request) {
        case .respond(var response):
            response.headers.append(date)
            return .respond(response)
        case .respondAfter(let delay, var response):
            response.headers.append(date)
            return .respondAfter(delay, response)
        case let other: return other
        }
    }

    private func route(_ request: HTTP2ServerRequest) -> HTTP2ServerAction {
        let (path, query) = AdminAPI.split(request.path)
        if path.hasPrefix("/_emulator/") { return .respond(admin(request, path: path, query: query)) }
        if path == "/token" || path == "/oauth2/token" { return .respond(tokenEndpoint(request)) }
        if path.hasPrefix("/v1/projects/") && path.hasSuffix("/messages:send") { return send(request, path: path) }
        return .respond(rpcError(404, "NOT_FOUND", "The requested URL \(path) was not found on this server."))
    }

    // OAuth2: FCMEmulator+OAuth.swift. messages:send: FCMEmulator+Send.swift.

    // MARK: Admin

    struct TokenRegistration: Decodable {
        var token: String
        var project: String?
        var dead: Bool?
    }

    private func admin(_ request: HTTP2ServerRequest, path: String, query: [String: String]) -> HTTP2ServerResponse {
        switch (request.method, path) {
        case ("GET", "/_emulator/records"):
            var list = records
            if let after = query["after"].flatMap(Int.init) { list = list.filter { $0.sequence > after } }
            if let token = query["token"] { list = list.filter { $0.tokenFingerprint == Fingerprint(of: token).value } }
            return AdminAPI.json(["records": list])
        case ("GET", "/_emulator/latest"):
            guard let token = query["token"] else { return AdminAPI.error(400, "give ?token=TOKEN") }
            guard let record = state.withLock({ $0.latest[Fingerprint(of: token).value] }) else {
                return AdminAPI.error(404, "no delivered message for that token")
            }
            return AdminAPI.json(record)
        case ("POST", "/_emulator/tokens"):
            guard let body = try? JSONDecoder().decode(TokenRegistration.self, from: Data(request.body)) else {
                return AdminAPI.error(400, "body must be {\"token\": TOKEN, \"project\"?: ID, \"dead\"?: true}")
            }
            registerToken(body.token, project: body.project)
            if body.dead == true { markTokenDead(body.token) }
            return AdminAPI.noContent
        case ("PUT", "/_emulator/faults"), ("POST", "/_emulator/faults"):
            do {
                setFaults(try JSONDecoder().decode(FCMFaultScript.self, from: Data(request.body)).faults)
                return AdminAPI.noContent
            } catch let error as DecodingError {
                return AdminAPI.error(400, "faults: \(EmulatorError.describe(error))")
            } catch {
                return AdminAPI.error(400, "faults: \(error)")
            }
        default:
            return AdminAPI.error(404, "unknown admin path \(path)")
        }
    }
}
