import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackModel
import DropTrackWire
import Foundation
import Synchronization

/// A local APNs that holds any client to Apple's rules: provider tokens, every documented header
/// and payload rule with Apple's status and reason, broadcast channels, scripted faults, and a
/// record of every request with lint findings for what the phone would silently drop.
public final class APNsEmulator: HTTP2ServerHandler, Sendable {
    struct Channel {
        var bundleID: String
        var policy: MessageStoragePolicy
        var deleted: Bool
    }

    /// One record, held by the ring and by its token's `latest` at once: each push then copies
    /// one reference instead of every field, and drops one when the ring overwrites the oldest.
    final class StoredRecord: Sendable {
        let record: APNsEmulatorRecord
        init(_ record: APNsEmulatorRecord) { self.record = record }
    }

    /// Accepted pushes by `aps.event`, counted without hashing the common three.
    struct EventCounts {
        var start = 0
        var update = 0
        var end = 0
        /// Anything else, keyed as sent (`-` when there was no event).
        var other: [String: Int] = [:]

        mutating func count(_ event: String?) {
            switch event {
            case "update": update += 1
            case "start": start += 1
            case "end": end += 1
            default: other[event ?? "-", default: 0] += 1
            }
        }

        var byEvent: [String: Int] {
            var counts = other
            for (event, count) in [("start", start), ("update", update), ("end", end)] where count > 0 {
                counts[event] = count
            }
            return counts
        }
    }

    /// Everything known about one device token, in one entry so a push costs one lookup.
    struct TokenState {
        var registration: EmulatedToken?
        var lastTimestamp: Int64?
        var ended = false
        var latest: StoredRecord?
        var accepted = EventCounts()

        /// The device keeps the newest by timestamp; an older push does not replace it.
        mutating func accept(_ stored: StoredRecord, timestamp: Int64, isEnd: Bool) {
            accepted.count(stored.record.event)
            if timestamp >= lastTimestamp ?? Int64.min {
                lastTimestamp = timestamp
                latest = stored
            }
            if isEnd { ended = true }
        }
    }

    struct State {
        var tokens: [String: TokenState] = [:]
        var records: RecordRing<StoredRecord>
        var sequence = 0
        var channels: [String: Channel] = [:]
        var faults = FaultBook<APNsFaultKind>()
        var verified: [String: Int64] = [:]
        var statusCounts: [Int: Int] = [:]
        var reasonCounts: [String: Int] = [:]
        var requestCount = 0
        var maxConcurrentStreams: UInt32
        var oneStreamUntilValidToken: Bool
    }

    /// The configuration in force.
    public let configuration: APNsEmulatorConfiguration
    private let clock: any WallClock
    let state: Mutex<State>
    let listeners = Mutex<[@Sendable (APNsDelivery) -> Void]>([])
    private let server = Mutex<HTTP2Server?>(nil)
    let ids = IdentifierGenerator()

    /// Creates an emulator; `start` serves it.
    public init(configuration: APNsEmulatorConfiguration, clock: any WallClock = SystemWallClock()) {
        self.configuration = configuration
        self.clock = clock
        state = Mutex(
            State(
                records: RecordRing(capacity: configuration.recordCapacity),
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

    /// PING frames received (clients' keep-alives).
    public var pingsReceived: Int { server.withLock { $0?.pingsReceived ?? 0 } }

    // MARK: Control, in-process

    /// Registers a device token, as a simulated device does when its app registers.
    public func registerToken(_ token: String, environment: APNsEnvironment, attributesType: String? = nil) {
        state.withLock {
            $0.tokens[token.lowercased(), default: TokenState()].registration = EmulatedToken(
                environment: environment, attributesType: attributesType)
        }
    }

    /// Marks a token dead: later pushes get 410 with the time it died.
    public func markTokenDead(_ token: String, reason: APNsReason = .unregistered) {
        let now = clock.now()
        state.withLock { state in
            var entry =
                state.tokens[token.lowercased()]?.registration ?? EmulatedToken(environment: configuration.environment)
            entry.dead = (reason, now)
            state.tokens[token.lowercased(), default: TokenState()].registration = entry
        }
    }

    /// Replaces the fault script.
    public func setFaults(_ faults: [APNsFault]) {
        state.withLock { $0.faults = FaultBook(faults) }
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

    /// Registers a device token given as a `DeviceToken`.
    public func registerToken(_ token: DeviceToken, environment: APNsEnvironment, attributesType: String? = nil) {
        registerToken(token.wireValue, environment: environment, attributesType: attributesType)
    }

    /// Marks a token given as a `DeviceToken` dead.
    public func markTokenDead(_ token: DeviceToken, reason: APNsReason = .unregistered) {
        markTokenDead(token.wireValue, reason: reason)
    }

    /// Records for one device token given as a `DeviceToken`.
    public func records(forToken token: DeviceToken) -> [APNsEmulatorRecord] { records(forToken: token.wireValue) }

    /// The newest accepted push to a token given as a `DeviceToken`.
    public func latestAccepted(forToken token: DeviceToken) -> APNsEmulatorRecord? {
        latestAccepted(forToken: token.wireValue)
    }

    /// Every record still kept, oldest first.
    public var records: [APNsEmulatorRecord] { state.withLock { $0.records.elements.map(\.record) } }

    /// Records with `sequence` greater than `after`.
    public func records(after sequence: Int) -> [APNsEmulatorRecord] {
        state.withLock { state in state.records.filter { $0.record.sequence > sequence }.map(\.record) }
    }

    /// Records for one device token.
    public func records(forToken token: String) -> [APNsEmulatorRecord] {
        let token = token.lowercased()
        return state.withLock { state in state.records.filter { $0.record.token?.wireValue == token }.map(\.record) }
    }

    /// The newest accepted push to a token (by timestamp, as the device would keep it). Kept
    /// for every token however many records have rotated out since.
    public func latestAccepted(forToken token: String) -> APNsEmulatorRecord? {
        state.withLock { $0.tokens[token.lowercased()]?.latest?.record }
    }

    /// What every token's device holds: accepted pushes by event, and the newest accepted one.
    public var devices: [EmulatedDevice] {
        state.withLock { state in
            state.tokens.compactMap { token, entry in
                guard let latest = entry.latest?.record else { return nil }
                return EmulatedDevice(
                    token: token, accepted: entry.accepted.byEvent, latestEvent: latest.event,
                    latestTimestamp: latest.timestamp, latestContentState: latest.contentState)
            }
        }
    }

    /// The newest accepted push of every token, by token (in-process only: keys are raw tokens).
    public var latestAcceptedByToken: [String: APNsEmulatorRecord] {
        state.withLock { $0.tokens.compactMapValues(\.latest?.record) }
    }

    /// Forgets every record.
    public func clearRecords() {
        state.withLock {
            $0.records.removeAll()
            for token in $0.tokens.keys { $0.tokens[token]?.latest = nil }
        }
    }

    /// Requests answered, by status and reason (`200`, `410 Unregistered`, …).
    public var statusCounts: [String: Int] {
        state.withLock { state in
            var counts = state.reasonCounts
            if let ok = state.statusCounts[200] { counts["200"] = ok }
            for (status, count) in state.statusCounts where status != 200 && !(400..<600).contains(status) {
                counts[String(status)] = count
            }
            return counts
        }
    }

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
        context.attachment = ConnectionAuthBox()
    }

    public func handle(_ request: HTTP2ServerRequest, context: HTTP2ServerConnectionContext) -> HTTP2ServerAction {
        if request.path.hasPrefix("/_emulator/") { return .respond(admin(request)) }
        var exchange = Exchange(request: request, now: clock.now(), connection: context.id)
        // APNs echoes the caller's id on every answer, errors included; clients match on it.
        if let id = exchange.headers.apnsID ?? exchange.headers.requestID, APNsPush.isCanonicalUUID(id.lowercased()) {
            exchange.apnsID = id.lowercased()
        }
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
        var lint: LintInput?
        var fault: String?
        var timestamp: Int64?
        var event: String?
        var delivery: APNsDelivery?
        let headers: APNsHeaderSet

        init(request: HTTP2ServerRequest, now: Date, connection: Int) {
            self.request = request
            self.now = now
            self.connection = connection
            self.headers = APNsHeaderSet(request.headers)
        }

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

    // Device pushes: APNsEmulator+DevicePushes.swift. Answers, faults and records: APNsEmulator+Answers.swift.
    // Provider tokens: APNsEmulator+ProviderTokens.swift. Broadcasts and channels: APNsEmulator+Broadcasts.swift.
}
