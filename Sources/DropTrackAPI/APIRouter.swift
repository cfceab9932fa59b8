import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackModel
import DropTrackStore
import Foundation
import Synchronization

/// Extra routes served before the API's own (the demo's dashboard and controls). Answers nil for
/// a request it does not handle.
public protocol RouteExtension: Sendable {
    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)?
}

/// Adds what only the devices know to `GET /v1/activities/{id}/diagnosis` (the demo's simulated
/// phones report the pushes they dropped, by token fingerprint).
public protocol DiagnosisSource: Sendable {
    func drops(app: String, activityId: String, deviceFingerprints: Set<String>) -> [JSONValue]
}

/// The HTTP API: routes, bearer-key and device-credential authentication, per-key and per-user rate limits, request ids, structured
/// request logs and metrics. Every refusal is a JSON `{"error": {"code", "message", "field"?}}`
/// naming what to fix; bad input is always a 4xx.
public final class APIRouter: HTTPHandler {
    let registry: ActivityRegistry
    let keyring: APIKeyring
    let limiter: RateLimiter
    /// Device-credential requests, per user of an app.
    let userLimiter: RateLimiter
    let deviceCredentials: any DeviceCredentialAuthority
    let events: EventBus
    let metrics: MetricsRegistry
    let logger: Logger
    let rawPush: RawPush
    let doctor: DoctorEndpoint
    let readiness: @Sendable () -> Readiness
    /// Told of each write the store refused, so that `/readyz` says so.
    let writeHealth: StoreWriteHealth
    let clock: any WallClock
    let extensions: [any RouteExtension]
    let diagnosisSources: [any DiagnosisSource]
    private let requestCounter = Atomic<Int>(0)
    private let requestPrefix = String(UUID().uuidString.prefix(8)).lowercased()

    /// Whether the server takes work: `/readyz` answers 200 only when ready.
    public enum Readiness: Sendable, Equatable {
        case ready
        case notReady(String)
    }

    /// Creates the router over the server's parts.
    public init(
        registry: ActivityRegistry, configuration: ServerConfiguration, events: EventBus, metrics: MetricsRegistry,
        logger: Logger, transport: any PushTransport, clock: any WallClock, extensions: [any RouteExtension] = [],
        diagnosisSources: [any DiagnosisSource] = [], deviceCredentials: (any DeviceCredentialAuthority)? = nil,
        writeHealth: StoreWriteHealth = StoreWriteHealth(), readiness: @escaping @Sendable () -> Readiness
    ) {
        self.writeHealth = writeHealth
        self.deviceCredentials = deviceCredentials ?? NoDeviceCredentials()
        self.userLimiter = RateLimiter(
            rate: configuration.requestsPerSecondPerUser, burst: configuration.requestsPerSecondPerUser * 4,
            clock: clock)
        self.extensions = extensions
        self.diagnosisSources = diagnosisSources
        self.registry = registry
        self.keyring = APIKeyring(apps: configuration.apps)
        self.limiter = RateLimiter(rate: configuration.requestsPerSecondPerKey, clock: clock)
        self.events = events
        self.metrics = metrics
        self.logger = logger.with(["component": "api"])
        self.rawPush = RawPush(configuration: configuration, transport: transport, clock: clock)
        self.doctor = DoctorEndpoint(
            registry: registry, configuration: configuration, clock: clock, transport: transport)
        self.readiness = readiness
        self.clock = clock
        metrics.declareCounter("droptrack_http_requests_total", help: "API requests by route, method and status.")
        metrics.declareHistogram(
            "droptrack_http_request_duration_seconds", help: "API request handling time by route.",
            buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5])
    }

    /// What one request resolved to, for the log line and the metrics.
    struct Outcome {
        var reply: HTTPReply
        var route: String
        var app: String? = nil
        /// The route was named by a `RouteExtension` (its names are fixed in code, not taken from the request).
        var viaExtension = false
    }

    public func handle(_ request: HTTPRequest) -> HTTPReply {
        let started = ContinuousClock.now
        let requestID = Self.acceptableRequestID(request.headers["x-request-id"]) ?? nextRequestID()
        var outcome = route(request)
        let status: Int
        switch outcome.reply {
        case .response(var response):
            response.headers.append((name: "X-Request-Id", value: requestID))
            status = response.status
            outcome.reply = .response(response)
        case .eventStream:
            status = 200
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // Labels come only from closed sets: a client picks the method and path, and each distinct label value
        // would be a series kept forever.
        let routeLabel =
            outcome.viaExtension || Self.routeTemplates.contains(outcome.route) ? outcome.route : "unmatched"
        metrics.increment(
            "droptrack_http_requests_total",
            ["route": routeLabel, "method": Self.methodLabel(request.method), "status": String(status)])
        metrics.observe("droptrack_http_request_duration_seconds", seconds, ["route": routeLabel])
        var fields = [
            // The same closed sets in the log: a 20 KB made-up method must not become 20 KB per log line.
            "requestId": requestID, "method": Self.methodLabel(request.method), "route": routeLabel,
            "status": String(status),
            "ms": String(format: "%.2f", seconds * 1000),
        ]
        if let app = outcome.app { fields["app"] = app }
        if status >= 500 {
            logger.error("http.request", fields)
        } else if outcome.route.hasPrefix("/v1/") {
            logger.info("http.request", fields)
        } else {
            logger.debug("http.request", fields)
        }
        return outcome.reply
    }

    private func nextRequestID() -> String {
        let number = requestCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return "\(requestPrefix)-\(number)"
    }

    /// A caller's own request id is echoed when it is short and plain (it lands in logs).
    static func acceptableRequestID(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 64,
            value.utf8.allSatisfy({ byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F || byte == 0x2E
            })
        else { return nil }
        return value
    }

    // MARK: Routing

    func route(_ request: HTTPRequest) -> Outcome {
        // Empty segments are kept: the path arrives percent-decoded, so `/v1/activities/a%2F` reads as
        // `/v1/activities/a/`, and dropping the empty segment would answer for activity `a`.
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        if let operational = operational(request, parts: parts) { return operational }
        for routes in extensions {
            if let (route, reply) = routes.reply(to: request) {
                return Outcome(reply: reply, route: route, viaExtension: true)
            }
        }
        guard parts.first == "v1" else {
            return Outcome(
                reply: error(APIError(404, .noRoute, "no endpoint \(request.path); see /openapi.json")),
                route: "unmatched")
        }
        let (template, methods) = Self.template(parts)
        guard let template else {
            return Outcome(
                reply: error(APIError(404, .noRoute, "no endpoint \(request.path); see /openapi.json")),
                route: "unmatched")
        }
        guard methods.contains(request.method) else {
            var response = errorResponse(
                APIError(
                    405, .methodNotAllowed,
                    "\(template) takes \(methods.sorted().joined(separator: " or ")), not \(request.method)"))
            response.headers.append((name: "Allow", value: methods.sorted().joined(separator: ", ")))
            return Outcome(reply: .response(response), route: template)
        }
        let caller: Caller
        switch authenticate(request) {
        case .success(let found): caller = found
        case .failure(let refusal):
            // A store that cannot say whether a credential was revoked is a 503, not a 401.
            return Outcome(reply: refusal.status == 401 ? unauthorized(refusal) : error(refusal), route: template)
        }
        if let refusal = rateLimit(caller) { return Outcome(reply: refusal, route: template, app: caller.app) }
        let reply: HTTPReply
        do {
            var scoped = request
            if case .device(let device) = caller {
                scoped = try scope(request, template: template, parts: parts, device: device)
            }
            reply = try serve(scoped, template: template, parts: parts, caller: caller)
        } catch {
            noteStoreFailure(error, method: request.method)
            reply = self.error(error)
        }
        return Outcome(reply: reply, route: template, app: caller.app)
    }

    /// Health, readiness, metrics and the OpenAPI document: no key needed, no tenant data.
    func operational(_ request: HTTPRequest, parts: [String]) -> Outcome? {
        guard let open = Self.routes.route(for: parts), open.methods.values.allSatisfy({ $0 == .open }) else {
            return nil
        }
        let route = open.template
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = errorResponse(
                APIError(405, .methodNotAllowed, "\(route) takes GET, not \(request.method)"))
            response.headers.append((name: "Allow", value: "GET, HEAD"))
            return Outcome(reply: .response(response), route: route)
        }
        let reply: HTTPReply
        switch parts[0] {
        case "healthz":
            reply = json(200, .object(["status": .string("ok")]))
        case "readyz":
            switch readiness() {
            case .ready: reply = json(200, .object(["status": .string("ready")]))
            case .notReady(let why):
                reply = json(503, .object(["status": .string("not_ready"), "reason": .string(why)]))
            }
        case "metrics":
            reply = .response(.text(200, metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8"))
        default:
            reply = .response(.json(200, OpenAPIDocument.served))
        }
        return Outcome(reply: reply, route: route)
    }

    /// The route template of a `/v1` path and the methods it takes, from the route table.
    static func template(_ parts: [String]) -> (String?, Set<String>) {
        guard parts.first == "v1", let route = routes.route(for: parts) else { return (nil, []) }
        return (route.template, Set(route.methods.keys))
    }

    func serve(_ request: HTTPRequest, template: String, parts: [String], caller: Caller) throws(APIError)
        -> HTTPReply
    {
        let app = caller.app
        // A path id outside the id rule (a decoded NUL, say) is refused, so it cannot reach another id.
        if template.hasPrefix("/v1/activities/{id}") {
            try domain { () throws(Refusal) in try Identifier.check(parts[2], field: "id") }
        }
        switch template {
        case "/v1/devices/{deviceId}/activities", "/v1/activities/{id}/lifecycle", "/v1/activities/{id}/actions",
            "/v1/device-credentials", "/v1/users/{userId}/revoke-credentials":
            return try serveDeviceRoute(request, template: template, parts: parts, caller: caller)
        case "/v1/users/{userId}/tags", "/v1/devices/{deviceId}/tags":
            return try serveTags(request, template: template, parts: parts, app: app)
        case "/v1/tokens/push-to-start", "/v1/tokens/activity", "/v1/tokens/fcm", "/v1/tokens/channel-subscription":
            let kind: TokenKind =
                switch parts[2] {
                case "push-to-start": .pushToStart
                case "activity": .activity
                case "channel-subscription": .channelSubscription
                default: .fcm
                }
            let body = try body(request)
            var user: String? = nil
            if case .device(let device) = caller { user = device.userId.rawValue }
            let (token, created) = try domain { () throws(Refusal) in
                try registry.registerToken(app: app, RegisterToken(kind: kind, json: body), by: user)
            }
            return json(
                created ? 201 : 200,
                .object([
                    "fingerprint": .string(token.fingerprint.value), "kind": .string(token.kind.rawValue),
                    "created": .bool(created),
                ]))
        case "/v1/tokens/{fingerprint}":
            let fingerprint = try Fingerprint(pathParameter: parts[2])
            try domain { () throws(Refusal) in try registry.deleteToken(app: app, fingerprint: fingerprint) }
            return .response(HTTPResponse(status: 204))
        case "/v1/activities":
            let body = try body(request)
            let (started, created) = try domain { () throws(Refusal) in
                try registry.startActivity(app: app, StartActivity(json: body))
            }
            return json(created ? 201 : 200, started.json)
        case "/v1/activities/{id}":
            if request.method == "GET" {
                let limit = try Self.limit(request.query["timelineLimit"])
                var viewer: String? = nil
                if case .device(let device) = caller { viewer = device.userId.rawValue }
                let page = try Self.memberPage(request.query)
                return json(
                    200,
                    try domain { () throws(Refusal) in
                        try registry.describe(
                            app: app, activityId: parts[2], timelineLimit: limit, viewer: viewer, page: page)
                    }.json)
            }
            let body = try body(request)
            return json(
                200,
                try domain { () throws(Refusal) in
                    try registry.updateActivity(app: app, activityId: parts[2], UpdateActivity(json: body))
                }.json)
        case "/v1/activities/{id}/events":
            let body = try body(request)
            return json(
                200,
                try domain { () throws(Refusal) in
                    try registry.applyEvent(app: app, activityId: parts[2], ApplyEvent(json: body))
                }.json)
        case "/v1/activities/{id}/end":
            let body = try body(request)
            return json(
                200,
                try domain { () throws(Refusal) in
                    try registry.endActivity(app: app, activityId: parts[2], EndActivity(json: body))
                }.json)
        case "/v1/activities/{id}/audience/refresh":
            let refreshed = try domain { () throws(Refusal) in
                try registry.refreshAudience(app: app, activityId: parts[2])
            }
            return json(200, refreshed.json)
        case "/v1/activities/{id}/diagnosis":
            let diagnosis = try domain { () throws(Refusal) in
                try registry.diagnose(app: caller.appID, activityId: ActivityID(validating: parts[2], field: "id"))
            }
            let fingerprints = Set(diagnosis.devices.map(\.fingerprint.value))
            let drops = diagnosisSources.flatMap {
                $0.drops(app: app, activityId: parts[2], deviceFingerprints: fingerprints)
            }
            var object = diagnosis.json.objectValue ?? [:]
            object["deviceDrops"] = .array(drops)
            return json(200, .object(object))
        case "/v1/push":
            return json(200, try rawPush.send(app: app, body: try body(request)))
        case "/v1/doctor":
            return json(200, try doctor.examine(app: app, body: try body(request)))
        case "/v1/events":
            // Streams are limited per key (devices never reach this route).
            guard case .backend(_, let key) = caller else {
                throw APIError(403, .deviceNotAllowed, "use the API key")
            }
            return eventStream(app: caller.appID, key: key, activityFilter: request.query["activityId"])
        default:
            throw APIError(404, .noRoute, "no endpoint \(request.path)")
        }
    }

    /// The request body as JSON, refusing other media types and malformed text with the position.
    func body(_ request: HTTPRequest) throws(APIError) -> JSONValue {
        try JSONMediaType.check(request.headers["content-type"], bodyBytes: request.body.count)
        guard !request.body.isEmpty else {
            throw APIError(400, .invalidBody, "the body is empty; send a JSON object")
        }
        do {
            return try JSONValue.parse(bytes: request.body)
        } catch {
            throw APIError(400, .malformedJSON, "the body is not valid JSON: \(error)", field: error.path)
        }
    }

    // MARK: Server-Sent Events

    func eventStream(app: AppID, key: String?, activityFilter: String?) -> HTTPReply {
        events.relay(app: app, key: key, ready: .object(["app": .string(app.rawValue)])) { payload in
            activityFilter.map { payload["activityId"]?.stringValue == $0 } ?? true
        }
    }

    // MARK: Responses

    func json(_ status: Int, _ value: JSONValue) -> HTTPReply { .response(.json(status, value.serialized())) }

    /// A request the store failed (503 `store_unavailable`) counts in `droptrack_store_errors_total`, as the
    /// dispatcher's failures do, and a refused write makes `/readyz` answer 503 until the store takes one.
    private func noteStoreFailure(_ error: any Error, method: String) {
        guard let refusal = error as? APIError, refusal.code == .storeUnavailable else { return }
        let isRead = method == "GET" || method == "HEAD"
        metrics.increment("droptrack_store_errors_total", ["operation": isRead ? "api_read" : "api_write"])
        if !isRead { writeHealth.markRefused(operation: "api_write", error: refusal.message, at: clock.now()) }
    }

    func errorResponse(_ error: APIError) -> HTTPResponse { .json(error.status, error.body.serialized()) }

    func error(_ error: APIError) -> HTTPReply {
        var response = errorResponse(error)
        if error.status == 503 { response.headers.append((name: "Retry-After", value: "1")) }
        return .response(response)
    }
}
