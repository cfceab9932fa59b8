import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackWire
import Foundation
import Synchronization

/// What goes wrong in an FCM fault.
public enum FCMFaultKind: String, Codable, Sendable, CaseIterable {
    /// 404 UNREGISTERED.
    case unregistered
    /// 403 SENDER_ID_MISMATCH.
    case senderIdMismatch
    /// 400 INVALID_ARGUMENT naming the registration token.
    case invalidToken
    /// 429 QUOTA_EXCEEDED (with FcmError), `Retry-After` when set.
    case quotaExceeded
    /// 429 RESOURCE_EXHAUSTED without FcmError (the project quota).
    case resourceExhausted
    /// 500 INTERNAL.
    case `internal`
    /// 503 UNAVAILABLE, `Retry-After` when set.
    case unavailable
    /// 401 THIRD_PARTY_AUTH_ERROR.
    case thirdPartyAuthError
    /// 401 UNAUTHENTICATED, as if the access token had been revoked.
    case unauthenticated
    /// The TCP connection is dropped with the request unanswered.
    case connectionReset
    /// The real answer, `delayMilliseconds` late.
    case delay
}

/// A fault the FCM emulator injects.
public typealias FCMFault = FaultRule<FCMFaultKind>

/// The FCM emulator's `--faults FILE` document.
public struct FCMFaultScript: Codable, Sendable {
    /// The faults, checked in order.
    public var faults: [FCMFault]

    public init(faults: [FCMFault]) { self.faults = faults }

    /// Reads a script file, naming the file and the problem in errors.
    public static func load(path: String) throws -> FCMFaultScript {
        try loadScript(path: path, kinds: FCMFaultKind.allCases.map(\.rawValue))
    }
}

/// How the FCM emulator behaves.
public struct FCMEmulatorConfiguration: Sendable {
    /// The project messages must be sent to.
    public var projectID: String
    /// The service account's public key: assertions must verify with it.
    public var serviceAccountKey: PublicKey
    /// The `client_email` assertions must carry as `iss`, when set.
    public var clientEmail: String?
    /// Audiences accepted besides Google's token endpoint (e.g. the emulator's own token URI).
    public var extraAudiences: [String]
    /// Access-token lifetime in seconds.
    public var accessTokenLifetime: Int
    /// Accept registration tokens never registered (load tests); otherwise they are UNREGISTERED.
    public var acceptUnknownTokens: Bool
    /// Records kept.
    public var recordCapacity: Int

    /// Creates a configuration.
    public init(
        projectID: String, serviceAccountKey: PublicKey, clientEmail: String? = nil, extraAudiences: [String] = [],
        accessTokenLifetime: Int = 3599, acceptUnknownTokens: Bool = false, recordCapacity: Int = 100_000
    ) {
        self.projectID = projectID
        self.serviceAccountKey = serviceAccountKey
        self.clientEmail = clientEmail
        self.extraAudiences = extraAudiences
        self.accessTokenLifetime = accessTokenLifetime
        self.acceptUnknownTokens = acceptUnknownTokens
        self.recordCapacity = recordCapacity
    }
}

/// One request the FCM emulator saw. Registration tokens appear only as fingerprints.
public struct FCMEmulatorRecord: Sendable, Codable {
    /// Order of arrival.
    public var sequence: Int
    /// When it arrived.
    public var receivedAt: Date
    /// `token` (OAuth) or `send`.
    public var kind: String
    /// The status answered.
    public var status: Int
    /// The FcmError code or google.rpc status (or OAuth `error`) answered.
    public var error: String?
    /// The error message answered.
    public var message: String?
    /// The registration token's fingerprint.
    public var tokenFingerprint: String?
    /// The topic or condition, for those targets.
    public var target: String?
    /// The data map sent (string values only, when accepted).
    public var data: [String: String]?
    /// `android.priority`.
    public var priority: String?
    /// `android.ttl`.
    public var ttl: String?
    /// `android.collapse_key`.
    public var collapseKey: String?
    /// True for `validate_only` sends (accepted, not delivered).
    public var validateOnly: Bool
    /// The message name answered.
    public var name: String?
    /// The fault that decided the answer.
    public var fault: String?
}

/// What the emulator hands to the simulated Android phone for each delivered message.
public struct FCMDelivery: Sendable {
    /// The registration token.
    public var token: String
    /// The data map.
    public var data: [String: String]
    /// `android.priority` (lowercase).
    public var priority: String
    /// The message name.
    public var name: String
    /// When FCM accepted it.
    public var acceptedAt: Date
}

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
    private let clock: any WallClock
    private let state: Mutex<State>
    private let listeners = Mutex<[@Sendable (FCMDelivery) -> Void]>([])
    private let server = Mutex<HTTP2Server?>(nil)
    private let ids = IdentifierGenerator()

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

    // MARK: OAuth2

    private func tokenEndpoint(_ request: HTTP2ServerRequest) -> HTTP2ServerResponse {
        let now = clock.now()
        let answer = exchange(request, now: now)
        let status: Int
        let error: String?
        let message: String?
        switch answer {
        case .success:
            (status, error, message) = (200, nil, nil)
        case .failure(let failure):
            (status, error, message) = (failure.status, failure.code, failure.detail)
        }
        record(
            FCMEmulatorRecord(
                sequence: 0, receivedAt: now, kind: "token", status: status, error: error, message: message,
                validateOnly: false))
        switch answer {
        case .success(let token):
            return jsonResponse(
                200,
                .object([
                    "access_token": .string(token), "expires_in": .number(Double(configuration.accessTokenLifetime)),
                    "token_type": .string("Bearer"),
                ]))
        case .failure(let failure):
            return jsonResponse(
                failure.status, .object(["error": .string(failure.code), "error_description": .string(failure.detail)]))
        }
    }

    private func exchange(_ request: HTTP2ServerRequest, now: Date) -> Result<String, GoogleTokenError> {
        guard request.method == "POST" else { return .failure(GoogleTokenError(405, "invalid_request", "Use POST")) }
        let form = FCMEmulator.parseForm(String(decoding: request.body, as: UTF8.self))
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return .failure(
                GoogleTokenError(400, "unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")"))
        }
        guard let assertion = form["assertion"], let parts = JWS.parse(assertion),
            let header = try? JSONValue.parse(parts.header), let claims = try? JSONValue.parse(parts.claims)
        else {
            return .failure(GoogleTokenError(400, "invalid_request", "Invalid JWT: the assertion is not a compact JWS"))
        }
        guard header["alg"]?.stringValue == "RS256" else {
            return .failure(GoogleTokenError(400, "invalid_grant", "Invalid JWT: alg must be RS256"))
        }
        guard parts.verify(with: configuration.serviceAccountKey) else {
            return .failure(GoogleTokenError(400, "invalid_grant", "Invalid JWT Signature."))
        }
        if let email = configuration.clientEmail, claims["iss"]?.stringValue != email {
            return .failure(
                GoogleTokenError(400, "invalid_grant", "Invalid JWT: iss is not the service account's client_email"))
        }
        let audiences = [GoogleTokenError.googleAudience] + configuration.extraAudiences
        guard let audience = claims["aud"]?.stringValue, audiences.contains(audience) else {
            return .failure(
                GoogleTokenError(400, "invalid_grant", "Invalid JWT: aud must be \(GoogleTokenError.googleAudience)"))
        }
        let scopes = (claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init)
        guard
            scopes.contains("https://www.googleapis.com/auth/firebase.messaging")
                || scopes.contains("https://www.googleapis.com/auth/cloud-platform")
        else {
            return .failure(
                GoogleTokenError(
                    400, "invalid_scope", "The scope does not allow sending FCM messages (firebase.messaging)"))
        }
        guard let iat = claims["iat"]?.numberValue, let exp = claims["exp"]?.numberValue else {
            return .failure(GoogleTokenError(400, "invalid_grant", "Invalid JWT: iat and exp are required"))
        }
        let nowSeconds = now.timeIntervalSince1970
        guard exp > iat, exp - iat <= 3600, exp > nowSeconds, iat <= nowSeconds + 300 else {
            return .failure(
                GoogleTokenError(
                    400, "invalid_grant",
                    "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
                ))
        }
        let token = "ya29.emulator-" + ids.next()
        state.withLock { state in
            state.tokenExchanges += 1
            let expiry = now.addingTimeInterval(TimeInterval(configuration.accessTokenLifetime))
            if state.accessTokens.count > 10_000 { state.accessTokens = state.accessTokens.filter { $0.value > now } }
            state.accessTokens[token] = expiry
        }
        return .success(token)
    }

    static func parseForm(_ body: String) -> [String: String] {
        var form: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let decode = { (text: Substring) in
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            form[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return form
    }

    // MARK: messages:send

    /// Outcome of checking one send.
    struct Verdict {
        var status: Int
        var error: String?
        var message: String?
        var response: HTTP2ServerResponse
        var fault: String?
        var delay: Duration?
    }

    private func send(_ request: HTTP2ServerRequest, path: String) -> HTTP2ServerAction {
        let now = clock.now()
        var entry = FCMEmulatorRecord(sequence: 0, receivedAt: now, kind: "send", status: 0, validateOnly: false)
        let verdict = check(request, path: path, now: now, entry: &entry)
        entry.status = verdict.status
        entry.error = verdict.error
        entry.message = verdict.message
        entry.fault = verdict.fault
        if verdict.fault == FCMFaultKind.connectionReset.rawValue {
            record(entry)
            return .resetConnection
        }
        record(entry)
        if let delay = verdict.delay { return .respondAfter(delay, verdict.response) }
        return .respond(verdict.response)
    }

    private func check(_ request: HTTP2ServerRequest, path: String, now: Date, entry: inout FCMEmulatorRecord)
        -> Verdict
    {
        func fail(
            _ code: FCMErrorCode, _ message: String, fcmError: Bool, details: [JSONValue] = [], retryAfter: Int? = nil
        ) -> Verdict {
            var allDetails = details
            if fcmError {
                allDetails.append(
                    .object([
                        "@type": .string("type.googleapis.com/google.firebase.fcm.v1.FcmError"),
                        "errorCode": .string(code.rawValue),
                    ]))
            }
            var response = rpcError(code.status, code.rpcStatus, message, details: allDetails)
            if let retryAfter { response.headers.append(HTTPHeader("retry-after", String(retryAfter))) }
            if code == .unauthenticated {
                response.headers.append(
                    HTTPHeader(
                        "www-authenticate", #"Bearer realm="https://accounts.google.com/", error="invalid_token""#))
            }
            return Verdict(status: code.status, error: code.rawValue, message: message, response: response)
        }
        guard request.method == "POST" else {
            return Verdict(
                status: 405, error: "METHOD_NOT_ALLOWED", message: "use POST",
                response: rpcError(405, "METHOD_NOT_ALLOWED", "messages:send takes POST"))
        }
        let authorization = request.headers.value(of: "authorization") ?? ""
        let bearer = authorization.split(separator: " ", maxSplits: 1)
        guard bearer.count == 2, bearer[0].lowercased() == "bearer" else {
            return fail(
                .unauthenticated,
                "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                fcmError: false)
        }
        let expiry = state.withLock { $0.accessTokens[String(bearer[1])] }
        guard let expiry, expiry > now else {
            return fail(
                .unauthenticated,
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                fcmError: false)
        }
        let project = String(path.dropFirst("/v1/projects/".count).dropLast("/messages:send".count))
        guard project == configuration.projectID else {
            return fail(
                .permissionDenied,
                "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).",
                fcmError: false)
        }
        guard let body = try? JSONValue.parse(bytes: request.body), let root = body.objectValue else {
            return fail(
                .invalidArgument, "Invalid JSON payload received. The body is not a JSON object.", fcmError: false)
        }
        for key in root.keys where !["message", "validate_only", "validateOnly"].contains(key) {
            return fail(
                .invalidArgument, "Invalid JSON payload received. Unknown name \"\(key)\": Cannot find field.",
                fcmError: false)
        }
        entry.validateOnly = (root["validate_only"] ?? root["validateOnly"])?.boolValue ?? false
        guard let message = root["message"]?.objectValue else {
            return fail(
                .invalidArgument, "Request contains an invalid argument: 'message' is required.", fcmError: true)
        }
        let targets = ["token", "topic", "condition"].filter { message[$0] != nil }
        guard targets.count == 1 else {
            return fail(
                .invalidArgument,
                "Exactly one of message.token, message.topic or message.condition must be set (found \(targets.count)).",
                fcmError: true)
        }
        let token = message["token"]?.stringValue
        entry.tokenFingerprint = token.map { Fingerprint(of: $0).value }
        entry.target = message["topic"]?.stringValue ?? message["condition"]?.stringValue
        var data: [String: String] = [:]
        if let dataValue = message["data"] {
            guard let object = dataValue.objectValue else {
                return fail(
                    .invalidArgument, "Invalid value at 'message.data': must be an object of strings.", fcmError: false)
            }
            for key in object.keys.sorted() {
                guard let text = object[key]?.stringValue else {
                    let shown = object[key].map { String(decoding: $0.serialized(), as: UTF8.self) } ?? ""
                    let field = "message.data[\(key)].value"
                    return fail(
                        .invalidArgument,
                        "Invalid value at '\(field)' (TYPE_STRING), \(shown): FCM data values must be strings.",
                        fcmError: false,
                        details: [
                            .object([
                                "@type": .string("type.googleapis.com/google.rpc.BadRequest"),
                                "fieldViolations": .array([
                                    .object([
                                        "field": .string(field),
                                        "description": .string("Invalid value at '\(field)' (TYPE_STRING), \(shown)"),
                                    ])
                                ]),
                            ])
                        ])
                }
                if let reason = FCMLimits.reservation(of: key) {
                    return fail(.invalidArgument, "Invalid data payload key '\(key)': \(reason).", fcmError: true)
                }
                data[key] = text
            }
        }
        let limit = message["topic"] != nil ? FCMLimits.topicDataBytes : FCMLimits.dataBytes
        let size = FCMLimits.size(of: data)
        guard size <= limit else {
            return fail(
                .invalidArgument,
                "Android message is too big: the data payload is \(size) bytes; the limit is \(limit).", fcmError: true)
        }
        if let android = message["android"] {
            guard let object = android.objectValue else {
                return fail(.invalidArgument, "Invalid value at 'message.android': must be an object.", fcmError: false)
            }
            if let priority = object["priority"] {
                guard let text = priority.stringValue, ["high", "normal"].contains(text.lowercased()) else {
                    return fail(
                        .invalidArgument,
                        "Invalid value at 'message.android.priority' (TYPE_ENUM), \(String(decoding: priority.serialized(), as: UTF8.self)): use \"high\" or \"normal\".",
                        fcmError: false)
                }
                entry.priority = text.lowercased()
            }
            if let ttl = object["ttl"] {
                guard let text = ttl.stringValue, let seconds = FCMEmulator.parseDuration(text) else {
                    return fail(
                        .invalidArgument,
                        "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration): write seconds with an 's', like \"30s\" or \"1.5s\".",
                        fcmError: false)
                }
                guard seconds >= 0, seconds <= Double(FCMLimits.maximumTTLSeconds) else {
                    return fail(
                        .invalidArgument, "The TTL \(text) is out of range: 0 to 2419200s (28 days).", fcmError: true)
                }
                entry.ttl = text
            }
            entry.collapseKey = (object["collapse_key"] ?? object["collapseKey"])?.stringValue
        }
        entry.data = data
        if let fault = state.withLock({ $0.faults.fire(token: token) }) {
            var verdict: Verdict?
            switch fault.kind {
            case .unregistered: verdict = fail(.unregistered, "Requested entity was not found.", fcmError: true)
            case .senderIdMismatch: verdict = fail(.senderIdMismatch, "SenderId mismatch", fcmError: true)
            case .invalidToken:
                verdict = fail(
                    .invalidArgument, "The registration token is not a valid FCM registration token", fcmError: true)
            case .quotaExceeded:
                verdict = fail(
                    .quotaExceeded, "Quota exceeded for the device.", fcmError: true,
                    retryAfter: fault.retryAfterSeconds)
            case .resourceExhausted:
                verdict = fail(
                    .resourceExhausted,
                    "Quota exceeded for quota metric 'Send requests' of service 'fcm.googleapis.com'.",
                    fcmError: false,
                    details: [
                        .object([
                            "@type": .string("type.googleapis.com/google.rpc.ErrorInfo"),
                            "reason": .string("RATE_LIMIT_EXCEEDED"),
                            "domain": .string("googleapis.com"),
                        ])
                    ], retryAfter: fault.retryAfterSeconds)
            case .internal:
                verdict = fail(
                    .internal, "Internal error encountered.", fcmError: true, retryAfter: fault.retryAfterSeconds)
            case .unavailable:
                verdict = fail(
                    .unavailable, "The service is currently unavailable.", fcmError: true,
                    retryAfter: fault.retryAfterSeconds)
            case .thirdPartyAuthError:
                verdict = fail(.thirdPartyAuthError, "Auth error from APNS or Web Push Service", fcmError: true)
            case .unauthenticated:
                verdict = fail(.unauthenticated, "Request had invalid authentication credentials.", fcmError: false)
            case .connectionReset:
                return Verdict(
                    status: 0, error: nil, message: nil, response: HTTP2ServerResponse(status: 500),
                    fault: fault.kind.rawValue)
            case .delay: break
            }
            if var verdict {
                verdict.fault = fault.kind.rawValue
                return verdict
            }
            var accepted = deliver(entry: &entry, token: token, data: data, now: now)
            accepted.fault = fault.kind.rawValue
            accepted.delay = .milliseconds(fault.delayMilliseconds ?? 1000)
            return accepted
        }
        if let token {
            let registration = state.withLock { $0.registered[token] }
            if let registration {
                if registration.dead { return fail(.unregistered, "Requested entity was not found.", fcmError: true) }
                if registration.project != configuration.projectID {
                    return fail(.senderIdMismatch, "SenderId mismatch", fcmError: true)
                }
            } else if !configuration.acceptUnknownTokens {
                return fail(.unregistered, "Requested entity was not found.", fcmError: true)
            }
        }
        return deliver(entry: &entry, token: token, data: data, now: now)
    }

    private func deliver(entry: inout FCMEmulatorRecord, token: String?, data: [String: String], now: Date) -> Verdict {
        let number = state.withLock {
            $0.messages += 1
            return $0.messages
        }
        let name =
            entry.validateOnly
            ? "projects/\(configuration.projectID)/messages/fake_message_id"
            : "projects/\(configuration.projectID)/messages/0:\(Int64(now.timeIntervalSince1970 * 1000))%\(number)"
        entry.name = name
        if !entry.validateOnly, let token {
            let delivery = FCMDelivery(
                token: token, data: data, priority: entry.priority ?? "normal", name: name, acceptedAt: now)
            for listener in listeners.withLock({ $0 }) { listener(delivery) }
        }
        return Verdict(status: 200, response: jsonResponse(200, .object(["name": .string(name)])))
    }

    private func record(_ entry: FCMEmulatorRecord) {
        state.withLock { state in
            state.sequence += 1
            var entry = entry
            entry.sequence = state.sequence
            state.records.append(entry)
            if entry.kind == "send", entry.status == 200, !entry.validateOnly, let fingerprint = entry.tokenFingerprint
            {
                state.latest[fingerprint] = entry
            }
        }
    }

    /// `"30s"`, `"1.5s"`, `"3.000000001s"` → seconds; nil when it is not a protobuf Duration.
    static func parseDuration(_ text: String) -> Double? {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isNumber) else {
            return nil
        }
        if parts.count == 2 {
            guard (1...9).contains(parts[1].count), parts[1].allSatisfy(\.isNumber) else { return nil }
        }
        return Double(number)
    }

    private func jsonResponse(_ status: Int, _ body: JSONValue) -> HTTP2ServerResponse {
        HTTP2ServerResponse(
            status: status, headers: [HTTPHeader("content-type", "application/json; charset=UTF-8")],
            body: body.serialized())
    }

    private func rpcError(_ status: Int, _ rpcStatus: String, _ message: String, details: [JSONValue] = [])
        -> HTTP2ServerResponse
    {
        var error: [String: JSONValue] = [
            "code": .number(Double(status)), "message": .string(message), "status": .string(rpcStatus),
        ]
        if !details.isEmpty { error["details"] = .array(details) }
        return jsonResponse(status, .object(["error": .object(error)]))
    }

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

/// A token-endpoint refusal, shaped like Google's `{error, error_description}`.
struct GoogleTokenError: Error {
    static let googleAudience = "https://oauth2.googleapis.com/token"
    var status: Int
    var code: String
    var detail: String

    init(_ status: Int, _ code: String, _ detail: String) {
        self.status = status
        self.code = code
        self.detail = detail
    }
}
