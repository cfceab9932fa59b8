import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackWire
import Foundation
import Synchronization

/// How the APNs emulator behaves.
public struct APNsEmulatorConfiguration: Sendable {
    /// The team id provider tokens must carry (`iss`).
    public var teamID: String
    /// Signing keys by key id (`kid`).
    public var keys: [String: PublicKey]
    /// Bundle ids whose topics this team may push to.
    public var bundleIDs: [String]
    /// The environment this emulator plays; tokens registered for the other one get BadDeviceToken.
    public var environment: APNsEnvironment
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` once a valid provider token was seen.
    public var maxConcurrentStreams: UInt32
    /// Advertise one stream until the connection's first valid provider token, as APNs does.
    public var oneStreamUntilValidToken: Bool
    /// Refuse DER-encoded ES256 signatures (APNs accepts both raw and DER).
    public var strictSignatures: Bool
    /// Answer BadDeviceToken for tokens never registered with the emulator.
    public var requireRegisteredTokens: Bool
    /// Records kept in memory (oldest dropped first).
    public var recordCapacity: Int
    /// Contracts to decode content-state and attributes with, by `attributes-type`.
    public var contracts: [String: LiveActivityContract]
    /// Channels an app may hold.
    public var channelLimit: Int

    /// Creates a configuration.
    public init(
        teamID: String, keys: [String: PublicKey], bundleIDs: [String], environment: APNsEnvironment = .sandbox,
        maxConcurrentStreams: UInt32 = 1000, oneStreamUntilValidToken: Bool = true, strictSignatures: Bool = false,
        requireRegisteredTokens: Bool = false, recordCapacity: Int = 100_000,
        contracts: [String: LiveActivityContract] = [DeliveryAttributes.typeName: .delivery], channelLimit: Int = 10_000
    ) {
        self.teamID = teamID
        self.keys = keys
        self.bundleIDs = bundleIDs
        self.environment = environment
        self.maxConcurrentStreams = maxConcurrentStreams
        self.oneStreamUntilValidToken = oneStreamUntilValidToken
        self.strictSignatures = strictSignatures
        self.requireRegisteredTokens = requireRegisteredTokens
        self.recordCapacity = recordCapacity
        self.contracts = contracts
        self.channelLimit = channelLimit
    }
}

/// A local APNs that holds any client to Apple's rules: provider tokens, every documented header
/// and payload rule with Apple's status and reason, broadcast channels, scripted faults, and a
/// record of every request with lint findings for what the phone would silently drop.
public final class APNsEmulator: HTTP2ServerHandler, Sendable {
    struct Channel {
        var bundleID: String
        var policy: MessageStoragePolicy
        var deleted: Bool
    }

    struct State {
        var tokens: [String: EmulatedToken] = [:]
        var lastTimestamp: [String: Int64] = [:]
        var endedTokens: Set<String> = []
        var records: [APNsEmulatorRecord] = []
        var recordStart = 0
        var sequence = 0
        var latestAccepted: [String: Int] = [:]
        var channels: [String: Channel] = [:]
        var faults: [APNsFault] = []
        var faultCounters: [Int] = []
        var verified: [String: Int64] = [:]
        var statusCounts: [String: Int] = [:]
        var requestCount = 0
        var maxConcurrentStreams: UInt32
        var oneStreamUntilValidToken: Bool
    }

    final class ConnectionAuth {
        var token: String?
        var tokenSince: Date?
        var validSeen = false
    }

    /// The configuration in force.
    public let configuration: APNsEmulatorConfiguration
    private let clock: any WallClock
    private let state: Mutex<State>
    private let listeners = Mutex<[@Sendable (APNsDelivery) -> Void]>([])
    private let server = Mutex<HTTP2Server?>(nil)

    /// Creates an emulator; `start` serves it.
    public init(configuration: APNsEmulatorConfiguration, clock: any WallClock = SystemWallClock()) {
        self.configuration = configuration
        self.clock = clock
        state = Mutex(
            State(
                maxConcurrentStreams: configuration.maxConcurrentStreams,
                oneStreamUntilValidToken: configuration.oneStreamUntilValidToken))
    }

    // MARK: Serving

    /// Serves on `host:port` (port 0 picks one) over TLS with ALPN h2 (and http/1.1 for the
    /// admin endpoint from curl). Returns the bound port.
    @discardableResult
    public func start(tls: TLSContext, host: String = "127.0.0.1", port: Int = 0) throws -> Int {
        let http = HTTP2Server(tls: tls, handler: self, maxConcurrentStreams: configuration.maxConcurrentStreams)
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

    /// The bound port, once started.
    public var port: Int { server.withLock { $0?.port ?? 0 } }

    // MARK: Control, in-process

    /// Registers a device token, as a simulated device does when its app registers.
    public func registerToken(_ token: String, environment: APNsEnvironment, attributesType: String? = nil) {
        state.withLock { $0.tokens[token.lowercased()] = EmulatedToken(environment: environment, attributesType: attributesType) }
    }

    /// Marks a token dead: later pushes get 410 with the time it died.
    public func markTokenDead(_ token: String, reason: APNsReason = .unregistered) {
        let now = clock.now()
        state.withLock { state in
            var entry = state.tokens[token.lowercased()] ?? EmulatedToken(environment: configuration.environment)
            entry.dead = (reason, now)
            state.tokens[token.lowercased()] = entry
        }
    }

    /// Replaces the fault script.
    public func setFaults(_ faults: [APNsFault]) {
        state.withLock {
            $0.faults = faults
            $0.faultCounters = Array(repeating: 0, count: faults.count)
        }
    }

    /// Applies a fault script file's contents.
    public func apply(_ script: APNsFaultScript) {
        setFaults(script.faults)
        state.withLock {
            if let streams = script.maxConcurrentStreams { $0.maxConcurrentStreams = streams }
            if let one = script.oneStreamUntilValidToken { $0.oneStreamUntilValidToken = one }
        }
    }

    /// Calls `listener` for every accepted push (on a connection thread), so simulated devices
    /// receive what APNs would deliver.
    public func addDeliveryListener(_ listener: @escaping @Sendable (APNsDelivery) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    /// Every record still kept, oldest first.
    public var records: [APNsEmulatorRecord] { state.withLock { Array($0.records[$0.recordStart...]) } }

    /// Records with `sequence` greater than `after`.
    public func records(after sequence: Int) -> [APNsEmulatorRecord] {
        state.withLock { state in state.records[state.recordStart...].filter { $0.sequence > sequence } }
    }

    /// Records for one device token.
    public func records(forToken token: String) -> [APNsEmulatorRecord] {
        let fingerprint = Fingerprint(of: token.lowercased()).value
        return state.withLock { state in state.records[state.recordStart...].filter { $0.tokenFingerprint == fingerprint } }
    }

    /// The newest accepted push to a token (by timestamp, as the device would keep it).
    public func latestAccepted(forToken token: String) -> APNsEmulatorRecord? {
        state.withLock { state in
            guard let index = state.latestAccepted[token.lowercased()], index >= state.recordStart else { return nil }
            return state.records[index]
        }
    }

    /// Forgets every record.
    public func clearRecords() {
        state.withLock {
            $0.records.removeAll()
            $0.recordStart = 0
            $0.latestAccepted.removeAll()
        }
    }

    /// Requests answered, by status and reason (`200`, `410 Unregistered`, …).
    public var statusCounts: [String: Int] { state.withLock { $0.statusCounts } }

    /// Requests seen in all.
    public var requestCount: Int { state.withLock { $0.requestCount } }

    /// Live channel ids.
    public var channelIDs: [String] { state.withLock { $0.channels.filter { !$0.value.deleted }.map(\.key).sorted() } }

    /// Deletes a channel behind the app's back (a fault: later broadcasts get ChannelNotRegistered).
    public func deleteChannel(_ id: String) { state.withLock { $0.channels[id]?.deleted = true } }

    // MARK: HTTP2ServerHandler

    public func connectionOpened(_ context: HTTP2ServerConnectionContext) {
        let (limit, oneFirst) = state.withLock { ($0.maxConcurrentStreams, $0.oneStreamUntilValidToken) }
        context.maxConcurrentStreams = oneFirst ? 1 : limit
        context.attachment = ConnectionAuth()
    }

    public func handle(_ request: HTTP2ServerRequest, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        if request.path.hasPrefix("/_emulator/") { return .respond(admin(request)) }
        var exchange = Exchange(request: request, now: clock.now(), connection: context.id)
        let action = route(&exchange, context: context)
        finish(exchange)
        return action
    }

    /// One request on its way through the checks.
    struct Exchange {
        let request: HTTP2ServerRequest
        let now: Date
        let connection: Int
        var kind = "other"
        var token: String?
        var channelID: String?
        var bundleID: String?
        var status = 0
        var reason: APNsReason?
        var apnsID: String?
        var priority: Int?
        var payload: JSONValue?
        var findings: [LintFinding] = []
        var fault: String?
        var timestamp: Int64?
        var event: String?
        var delivery: APNsDelivery?

        func header(_ name: String) -> String? { request.headers.value(of: name) }
    }

    private func route(_ exchange: inout Exchange, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        let path = exchange.request.path
        if path.hasPrefix("/3/device") {
            exchange.kind = "device"
            return devicePush(&exchange, context: context)
        }
        if path.hasPrefix("/4/broadcasts/apps/") {
            exchange.kind = "broadcast"
            return broadcast(&exchange, context: context)
        }
        if path.hasPrefix("/1/apps/") {
            exchange.kind = "channel"
            return channelManagement(&exchange, context: context)
        }
        return reject(&exchange, .badPath)
    }

    // MARK: Device pushes

    private func devicePush(_ exchange: inout Exchange, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        let request = exchange.request
        let rawToken = request.path.dropFirst("/3/device".count).drop { $0 == "/" }
        let token = String(rawToken).lowercased()
        exchange.token = token.isEmpty ? nil : token
        if let faultAction = injectFault(&exchange) { return faultAction }
        guard request.method == "POST" else { return reject(&exchange, .methodNotAllowed) }
        if let duplicate = duplicateHeader(request) { return reject(&exchange, .duplicateHeaders, note: duplicate) }
        if let authFailure = authenticate(&exchange, context: context) { return authFailure }
        if let id = exchange.header("apns-id") {
            guard APNsPush.isCanonicalUUID(id.lowercased()) else { return reject(&exchange, .badMessageId) }
            exchange.apnsID = id.lowercased()
        }
        guard let topic = exchange.header("apns-topic"), !topic.isEmpty else { return reject(&exchange, .missingTopic) }
        let hasSuffix = topic.hasSuffix(APNsLimits.liveActivityTopicSuffix)
        let bundle = hasSuffix ? String(topic.dropLast(APNsLimits.liveActivityTopicSuffix.count)) : topic
        exchange.bundleID = bundle
        guard configuration.bundleIDs.contains(bundle) else { return reject(&exchange, .topicDisallowed) }
        let pushType = exchange.header("apns-push-type")
        if hasSuffix {
            guard pushType == "liveactivity" else { return reject(&exchange, .invalidPushType) }
        } else if pushType == "liveactivity" || pushType == nil {
            // The bare bundle id with a Live Activity token: what APNs answers for DT-001.
            return reject(&exchange, .deviceTokenNotForTopic)
        } else {
            return reject(&exchange, .invalidPushType)
        }
        let priorityText = exchange.header("apns-priority") ?? "10"
        guard let priority = Int(priorityText), priority == 5 || priority == 10 else {
            return reject(&exchange, .badPriority)
        }
        exchange.priority = priority
        if let expiration = exchange.header("apns-expiration") {
            guard let value = Int64(expiration), value >= 0 else { return reject(&exchange, .badExpirationDate) }
        }
        if let collapse = exchange.header("apns-collapse-id"), collapse.utf8.count > APNsLimits.collapseIDBytes {
            return reject(&exchange, .badCollapseId)
        }
        guard !token.isEmpty else { return reject(&exchange, .missingDeviceToken) }
        guard APNsPush.isHexToken(token) else { return reject(&exchange, .badDeviceToken) }
        let (known, lastTimestamp, ended) = state.withLock { ($0.tokens[token], $0.lastTimestamp[token], $0.endedTokens.contains(token)) }
        if let known {
            if known.environment != configuration.environment { return reject(&exchange, .badDeviceToken) }
            if let dead = known.dead { return reject(&exchange, dead.reason, invalidatedAt: dead.since) }
        } else if configuration.requireRegisteredTokens {
            return reject(&exchange, .badDeviceToken)
        }
        guard !request.body.isEmpty else { return reject(&exchange, .payloadEmpty) }
        guard request.body.count <= APNsLimits.devicePayloadBytes else { return reject(&exchange, .payloadTooLarge) }
        let payload = try? JSONValue.parse(Data(request.body))
        exchange.payload = payload
        exchange.event = payload?["aps"]?["event"]?.stringValue
        exchange.timestamp = payload?["aps"]?["timestamp"]?.numberValue.map { Int64($0) }
        if let payload {
            let contract = known?.attributesType.flatMap { configuration.contracts[$0] }
            exchange.findings = LiveActivityLint.check(
                payload,
                context: .init(
                    now: exchange.now, lastTimestamp: lastTimestamp, contract: contract,
                    contracts: configuration.contracts, activityEnded: ended))
        } else {
            exchange.findings = [
                LintFinding(
                    trap: "DT-023", severity: .error, field: "payload", message: "the body is not JSON; the device drops it",
                    fix: "send a JSON object")
            ]
        }
        return accept(&exchange, token: token, bundleID: bundle)
    }

    private func accept(_ exchange: inout Exchange, token: String?, bundleID: String) -> HTTP2ServerAction {
        let apnsID = exchange.apnsID ?? UUID().uuidString.lowercased()
        exchange.apnsID = apnsID
        exchange.status = 200
        exchange.delivery = APNsDelivery(
            token: token, channelID: exchange.channelID, bundleID: bundleID, payload: exchange.request.body,
            priority: exchange.priority ?? 10, apnsID: apnsID, acceptedAt: exchange.now)
        var headers = [HTTPHeader(exchange.kind == "broadcast" ? "apns-request-id" : "apns-id", apnsID)]
        if configuration.environment == .sandbox && exchange.kind == "device" {
            headers.append(HTTPHeader("apns-unique-id", UUID().uuidString.lowercased()))
        }
        return delayed(exchange, .respond(HTTP2ServerResponse(status: 200, headers: headers)))
    }

    private func reject(_ exchange: inout Exchange, _ reason: APNsReason, invalidatedAt: Date? = nil, retryAfter: Int? = nil, note: String? = nil) -> HTTP2ServerAction {
        exchange.status = reason.status
        exchange.reason = reason
        let apnsID = exchange.apnsID ?? UUID().uuidString.lowercased()
        exchange.apnsID = apnsID
        var body = #"{"reason":"\#(reason.rawValue)""#
        if let invalidatedAt { body += #","timestamp":\#(Int64(invalidatedAt.timeIntervalSince1970 * 1000))"# }
        body += "}"
        var headers = [
            HTTPHeader(exchange.kind == "device" ? "apns-id" : "apns-request-id", apnsID),
            HTTPHeader("content-type", "application/json"),
        ]
        if let retryAfter { headers.append(HTTPHeader("retry-after", String(retryAfter))) }
        return delayed(exchange, .respond(HTTP2ServerResponse(status: reason.status, headers: headers, body: Array(body.utf8))))
    }

    /// Wraps the answer in a `delay` fault when one fired.
    private func delayed(_ exchange: Exchange, _ action: HTTP2ServerAction) -> HTTP2ServerAction {
        guard let fault = exchange.fault, fault.hasPrefix("delay:"), let ms = Int(fault.dropFirst(6)),
            case .respond(let response) = action
        else { return action }
        return .respondAfter(.milliseconds(ms), response)
    }

    private func duplicateHeader(_ request: HTTP2ServerRequest) -> String? {
        var seen = Set<String>()
        for header in request.headers where header.name.hasPrefix("apns-") || header.name == "authorization" {
            if !seen.insert(header.name).inserted { return header.name }
        }
        return nil
    }

    // MARK: Faults

    private func injectFault(_ exchange: inout Exchange) -> HTTP2ServerAction? {
        let fired: APNsFault? = state.withLock { state in
            for index in state.faults.indices {
                let fault = state.faults[index]
                if let token = fault.token, token.lowercased() != exchange.token { continue }
                if let times = fault.times, times <= 0 { continue }
                state.faultCounters[index] += 1
                if let nth = fault.everyNth, nth > 1, state.faultCounters[index] % nth != 0 { continue }
                if let times = fault.times { state.faults[index].times = times - 1 }
                return fault
            }
            return nil
        }
        guard let fault = fired else { return nil }
        exchange.fault = fault.kind.rawValue
        switch fault.kind {
        case .unregistered: return reject(&exchange, .unregistered, invalidatedAt: exchange.now)
        case .expiredToken: return reject(&exchange, .expiredToken)
        case .badDeviceToken: return reject(&exchange, .badDeviceToken)
        case .tooManyRequests: return reject(&exchange, .tooManyRequests, retryAfter: fault.retryAfterSeconds)
        case .internalServerError: return reject(&exchange, .internalServerError, retryAfter: fault.retryAfterSeconds)
        case .serviceUnavailable: return reject(&exchange, .serviceUnavailable, retryAfter: fault.retryAfterSeconds)
        case .shutdown: return reject(&exchange, .shutdown)
        case .goAway: return .goAway(errorCode: 0, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
        case .connectionReset: return .resetConnection
        case .delay:
            exchange.fault = "delay:\(fault.delayMilliseconds ?? 1000)"
            return nil
        }
    }

    // MARK: Provider tokens

    /// Checks `authorization` as APNs does; nil when the token is good.
    private func authenticate(_ exchange: inout Exchange, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction? {
        guard let header = exchange.header("authorization") else { return reject(&exchange, .missingProviderToken) }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return reject(&exchange, .invalidProviderToken) }
        let jwt = String(parts[1])
        let auth = context.attachment as? ConnectionAuth ?? ConnectionAuth()
        let issuedAt: Int64
        if let cached = state.withLock({ $0.verified[jwt] }) {
            issuedAt = cached
        } else {
            guard let verifiedIat = verify(jwt) else { return reject(&exchange, .invalidProviderToken) }
            issuedAt = verifiedIat
            state.withLock { state in
                if state.verified.count > 4096 { state.verified.removeAll() }
                state.verified[jwt] = verifiedIat
            }
        }
        let age = exchange.now.timeIntervalSince1970 - Double(issuedAt)
        if age > APNsLimitsForTokens.maximumAge { return reject(&exchange, .expiredProviderToken) }
        if auth.token != jwt {
            if let since = auth.tokenSince, exchange.now.timeIntervalSince(since) < APNsLimitsForTokens.minimumReuse {
                return reject(&exchange, .tooManyProviderTokenUpdates)
            }
            auth.token = jwt
            auth.tokenSince = exchange.now
        }
        if !auth.validSeen {
            auth.validSeen = true
            let (limit, oneFirst) = state.withLock { ($0.maxConcurrentStreams, $0.oneStreamUntilValidToken) }
            if oneFirst || context.maxConcurrentStreams != limit { context.updateMaxConcurrentStreams(limit) }
        }
        return nil
    }

    /// Verifies signature, `kid`, `alg` and `iss`; returns `iat`.
    private func verify(_ jwt: String) -> Int64? {
        guard let parts = JWS.parse(jwt),
            let header = try? JSONValue.parse(parts.header), let claims = try? JSONValue.parse(parts.claims),
            header["alg"]?.stringValue == "ES256", let kid = header["kid"]?.stringValue, let key = configuration.keys[kid],
            claims["iss"]?.stringValue == configuration.teamID
        else { return nil }
        // APNSwift and kalyke send iat as a numeric string, and APNs accepts it.
        let iat = claims["iat"]?.numberValue ?? claims["iat"]?.stringValue.flatMap(Double.init)
        guard let iat else { return nil }
        if configuration.strictSignatures && parts.signature.count != 64 { return nil }
        guard parts.verify(with: key) else { return nil }
        return Int64(iat)
    }

    // MARK: Broadcasts and channels

    private func broadcast(_ exchange: inout Exchange, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        let request = exchange.request
        let bundle = String(request.path.dropFirst("/4/broadcasts/apps/".count))
        exchange.bundleID = bundle
        exchange.channelID = exchange.header("apns-channel-id")
        if let faultAction = injectFault(&exchange) { return faultAction }
        guard request.method == "POST" else { return reject(&exchange, .methodNotAllowed) }
        if let duplicate = duplicateHeader(request) { return reject(&exchange, .duplicateHeaders, note: duplicate) }
        if let authFailure = authenticate(&exchange, context: context) { return authFailure }
        if bundle.hasSuffix(APNsLimits.liveActivityTopicSuffix) { return reject(&exchange, .topicDisallowed) }
        guard configuration.bundleIDs.contains(bundle) else { return reject(&exchange, .topicMismatch) }
        if let id = exchange.header("apns-request-id") ?? exchange.header("apns-id") {
            guard APNsPush.isCanonicalUUID(id.lowercased()) else { return reject(&exchange, .badMessageId) }
            exchange.apnsID = id.lowercased()
        }
        guard let pushType = exchange.header("apns-push-type") else { return reject(&exchange, .missingPushType) }
        guard pushType.lowercased() == "liveactivity" else { return reject(&exchange, .invalidPushType) }
        guard let channelID = exchange.channelID else { return reject(&exchange, .missingChannelId) }
        guard APNsPush.isBase64ChannelID(channelID) else { return reject(&exchange, .badChannelId) }
        let channel = state.withLock { $0.channels[channelID] }
        guard let channel, !channel.deleted, channel.bundleID == bundle else { return reject(&exchange, .channelNotRegistered) }
        guard let priority = Int(exchange.header("apns-priority") ?? "10"), [1, 5, 10].contains(priority) else {
            return reject(&exchange, .badPriority)
        }
        exchange.priority = priority
        if let expiration = exchange.header("apns-expiration") {
            guard let value = Int64(expiration), value >= 0 else { return reject(&exchange, .badExpirationDate) }
            if channel.policy == .noMessageStored && value != 0 { return reject(&exchange, .badExpirationDate) }
        }
        guard !request.body.isEmpty else { return reject(&exchange, .payloadEmpty) }
        guard request.body.count <= APNsLimits.broadcastPayloadBytes else { return reject(&exchange, .payloadTooLarge) }
        let payload = try? JSONValue.parse(Data(request.body))
        exchange.payload = payload
        exchange.event = payload?["aps"]?["event"]?.stringValue
        exchange.timestamp = payload?["aps"]?["timestamp"]?.numberValue.map { Int64($0) }
        if let payload {
            exchange.findings = LiveActivityLint.check(payload, context: .init(now: exchange.now, contracts: configuration.contracts))
            if exchange.event == "start" {
                exchange.findings.append(
                    LintFinding(
                        trap: "DT-032", severity: .error, field: "aps.event",
                        message: "a broadcast cannot start an activity", fix: "start with push-to-start carrying input-push-channel"))
            }
        }
        return accept(&exchange, token: nil, bundleID: bundle)
    }

    private func channelManagement(_ exchange: inout Exchange, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        let request = exchange.request
        let rest = request.path.dropFirst("/1/apps/".count).split(separator: "/")
        guard rest.count == 2, rest[1] == "channels" || rest[1] == "all-channels" else { return reject(&exchange, .badPath) }
        let bundle = String(rest[0])
        exchange.bundleID = bundle
        exchange.channelID = exchange.header("apns-channel-id")
        if let authFailure = authenticate(&exchange, context: context) { return authFailure }
        guard configuration.bundleIDs.contains(bundle) else { return reject(&exchange, .topicMismatch) }
        if let id = exchange.header("apns-request-id") {
            guard APNsPush.isCanonicalUUID(id.lowercased()) else { return reject(&exchange, .badMessageId) }
            exchange.apnsID = id.lowercased()
        }
        let requestID = exchange.apnsID ?? UUID().uuidString.lowercased()
        exchange.apnsID = requestID
        if rest[1] == "all-channels" {
            guard request.method == "GET" else { return reject(&exchange, .methodNotAllowed) }
            let ids = state.withLock { state in
                state.channels.filter { !$0.value.deleted && $0.value.bundleID == bundle }.map(\.key).sorted()
            }
            exchange.status = 200
            let body = JSONValue.object(["channels": .array(ids.map { .string($0) })]).encoded()
            return .respond(HTTP2ServerResponse(status: 200, headers: [HTTPHeader("apns-request-id", requestID)], body: Array(body)))
        }
        switch request.method {
        case "POST":
            guard let body = try? JSONValue.parse(Data(request.body)), let object = body.objectValue else {
                return reject(&exchange, .badRequestPayload)
            }
            guard Set(object.keys).isSubset(of: ["message-storage-policy", "push-type"]),
                let raw = object["message-storage-policy"]?.numberValue, let policy = MessageStoragePolicy(rawValue: Int(raw)),
                let pushType = object["push-type"]?.stringValue
            else { return reject(&exchange, .badRequestParams) }
            guard pushType.lowercased() == "liveactivity" else { return reject(&exchange, .invalidPushType) }
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
            let id = Data(bytes).base64EncodedString()
            let created: Bool = state.withLock { state in
                let live = state.channels.values.filter { !$0.deleted && $0.bundleID == bundle }.count
                guard live < configuration.channelLimit else { return false }
                state.channels[id] = Channel(bundleID: bundle, policy: policy, deleted: false)
                return true
            }
            guard created else { return reject(&exchange, .cannotCreateChannelConfig) }
            exchange.status = 201
            exchange.channelID = id
            return .respond(
                HTTP2ServerResponse(
                    status: 201, headers: [HTTPHeader("apns-request-id", requestID), HTTPHeader("apns-channel-id", id)]))
        case "GET", "DELETE":
            guard let id = exchange.channelID else { return reject(&exchange, .missingChannelId) }
            guard APNsPush.isBase64ChannelID(id) else { return reject(&exchange, .badChannelId) }
            let channel = state.withLock { $0.channels[id] }
            guard let channel, !channel.deleted, channel.bundleID == bundle else { return reject(&exchange, .channelNotRegistered) }
            if request.method == "DELETE" {
                state.withLock { $0.channels[id]?.deleted = true }
                exchange.status = 204
                return .respond(HTTP2ServerResponse(status: 204, headers: [HTTPHeader("apns-request-id", requestID)]))
            }
            exchange.status = 200
            let body = #"{"message-storage-policy":\#(channel.policy.rawValue),"push-type":"LiveActivity"}"#
            return .respond(
                HTTP2ServerResponse(status: 200, headers: [HTTPHeader("apns-request-id", requestID)], body: Array(body.utf8)))
        default:
            return reject(&exchange, .methodNotAllowed)
        }
    }

    // MARK: Records

    private func finish(_ exchange: Exchange) {
        var headers: [String: String] = [:]
        for header in exchange.request.headers {
            headers[header.name] =
                header.name == "authorization" ? "bearer <jwt \(Fingerprint(of: header.value).value)>" : header.value
        }
        let statusKey = exchange.reason.map { "\(exchange.status) \($0.rawValue)" } ?? String(exchange.status)
        let accepted = exchange.status == 200 && exchange.kind == "device"
        state.withLock { state in
            state.sequence += 1
            state.requestCount += 1
            state.statusCounts[statusKey, default: 0] += 1
            let record = APNsEmulatorRecord(
                sequence: state.sequence, receivedAt: exchange.now, connection: exchange.connection, kind: exchange.kind,
                method: exchange.request.method, tokenFingerprint: exchange.token.map { Fingerprint(of: $0).value },
                channelID: exchange.channelID, headers: headers, status: exchange.status,
                reason: exchange.reason?.rawValue, apnsID: exchange.apnsID, priority: exchange.priority,
                event: exchange.event, timestamp: exchange.timestamp, payload: exchange.payload,
                payloadBytes: exchange.request.body.count, findings: exchange.findings, fault: exchange.fault)
            state.records.append(record)
            let index = state.records.count - 1
            if accepted, let token = exchange.token {
                let stamp = exchange.timestamp ?? 0
                // The device keeps the newest by timestamp; an older push does not replace it.
                if stamp >= state.lastTimestamp[token] ?? Int64.min {
                    state.lastTimestamp[token] = stamp
                    state.latestAccepted[token] = index
                }
                if exchange.event == "end" { state.endedTokens.insert(token) }
            }
            if state.records.count - state.recordStart > configuration.recordCapacity {
                state.recordStart += 1
                if state.recordStart > 65_536 {
                    let dropped = state.recordStart
                    state.records.removeFirst(dropped)
                    state.recordStart = 0
                    for (token, position) in state.latestAccepted {
                        state.latestAccepted[token] = position >= dropped ? position - dropped : nil
                    }
                }
            }
        }
        if let delivery = exchange.delivery {
            for listener in listeners.withLock({ $0 }) { listener(delivery) }
        }
    }
}

/// Provider-token timing APNs enforces.
enum APNsLimitsForTokens {
    /// `iat` older than this gets ExpiredProviderToken.
    static let maximumAge: TimeInterval = 3600
    /// A new token sooner than this on one connection gets TooManyProviderTokenUpdates.
    static let minimumReuse: TimeInterval = 20 * 60
}
