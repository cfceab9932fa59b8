import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackHTTP2
import DropTrackModel
import DropTrackWire
import Foundation
import Synchronization

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

/// How an `APNsClient` reaches APNs and signs its requests.
public struct APNsClientConfiguration: Sendable {
    /// The app's bundle id; the topic is `<bundleID>.push-type.liveactivity`.
    public var bundleID: String
    /// The provider-token signer.
    public var providerToken: APNsProviderToken
    /// Apple's hosts for an environment, or a custom host (the emulator).
    public var endpoint: APNsEndpoint
    /// A CA file to trust instead of the system store (tests and the emulator).
    public var caFile: String?
    /// Deadline per request.
    public var requestTimeout: Duration
    /// Connections per host at most.
    public var maxConnections: Int
    /// Idle time before a PING.
    public var pingInterval: Duration

    /// Creates a configuration.
    public init(
        bundleID: String, providerToken: APNsProviderToken, endpoint: APNsEndpoint, caFile: String? = nil,
        requestTimeout: Duration = .seconds(10), maxConnections: Int = 4, pingInterval: Duration = .seconds(60)
    ) {
        self.bundleID = bundleID
        self.providerToken = providerToken
        self.endpoint = endpoint
        self.caFile = caFile
        self.requestTimeout = requestTimeout
        self.maxConnections = maxConnections
        self.pingInterval = pingInterval
    }
}

/// The outcome of one send: an APNs answer, a request refused before sending, or a transport failure.
public struct APNsSendResult: Sendable {
    /// What happened.
    public enum Outcome: Sendable {
        /// APNs answered.
        case answered(APNsResult)
        /// The request broke a rule APNs enforces, so it was not sent.
        case invalid(APNsRequestError)
        /// No answer: connect failure, timeout, lost connection.
        case transportFailure(HTTP2ClientError)
    }

    /// What happened.
    public var outcome: Outcome
    /// Time from send to answer.
    public var latency: Duration
    /// Requests made (more than 1 when APNs refused the provider token and the push went again on a new connection).
    public var attempts: Int

    /// What to do next.
    public var remedy: PushRemedy {
        switch outcome {
        case .answered(let result): result.remedy
        case .invalid: .rejectRequest
        case .transportFailure(let error): error.code == .connectionLost ? .reconnect : .retry(after: nil)
        }
    }

    /// Whether the push reached APNs, which decides whether a start may be sent again.
    public var reach: SendReach {
        switch outcome {
        case .answered: .answered
        case .invalid: .notSent
        case .transportFailure(let error): error.unprocessed ? .notSent : .inDoubt
        }
    }

    /// The APNs answer, when there was one.
    public var result: APNsResult? { if case .answered(let result) = outcome { result } else { nil } }

    /// True when APNs accepted the push.
    public var isSuccess: Bool { result?.isSuccess ?? false }

    /// The status code, or 0 without an answer.
    public var status: Int { result?.status ?? 0 }

    /// A short reason name for logs and metrics (`ok`, an APNs reason, `invalid_request`, a transport code).
    public var reasonName: String {
        switch outcome {
        case .answered(let result): result.reason?.rawValue ?? "ok"
        case .invalid(let error): "invalid_\(error.code)"
        case .transportFailure(let error): error.code.description
        }
    }

    /// One line for a person.
    public var explanation: String {
        switch outcome {
        case .answered(let result): result.explanation
        case .invalid(let error): "not sent: \(error.message)"
        case .transportFailure(let error):
            TLSFailure.isCertificateVerification(error.message)
                ? "no answer from APNs: \(error.message). \(TLSFailure.advice)"
                : "no answer from APNs: \(error.message). Remedy: \(remedy.advice)"
        }
    }
}

/// A failed channel-management call.
public enum APNsChannelError: Error, CustomStringConvertible, Sendable {
    /// APNs refused it.
    case rejected(APNsResult)
    /// No answer.
    case transport(HTTP2ClientError)
    /// The answer made no sense (e.g. a 201 without `apns-channel-id`).
    case malformedResponse(String)

    public var description: String {
        switch self {
        case .rejected(let result): result.explanation
        case .transport(let error): "no answer from APNs: \(error.message)"
        case .malformedResponse(let message): message
        }
    }
}

/// An APNs client for Live Activities: device pushes, iOS 18 broadcasts and channel management,
/// over long-lived HTTP/2 connections with a cached provider token. Generic over any content-state
/// and attributes, not just DropTrack's.
public final class APNsClient: Sendable {
    /// The configuration.
    public let configuration: APNsClientConfiguration
    private let pushConnection: HTTP2Client
    private let broadcastConnection: HTTP2Client
    private let managementConnection: HTTP2Client
    private let clock: any WallClock
    private let logger: Logger

    /// The headers of the last device push with only the usual ones, and what they were built from.
    private struct PlainHeaders {
        var authorization: String
        var topic: String
        var pushType: String
        var priority: Int
        var headers: [HTTPHeader]
    }

    private let lastPlainHeaders = Mutex<PlainHeaders?>(nil)

    /// Creates a client; connections open on first use.
    public init(
        configuration: APNsClientConfiguration, clock: any WallClock = SystemWallClock(), logger: Logger = .disabled
    ) throws {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger.with(["provider": "apns"])
        let tls = try TLSContext(clientALPN: ["h2"], caFile: configuration.caFile)
        let endpoint = configuration.endpoint
        func make(_ host: String, _ port: Int) -> HTTP2Client {
            HTTP2Client(
                configuration: .init(
                    host: host, port: port, maxConnections: configuration.maxConnections,
                    requestTimeout: configuration.requestTimeout, pingInterval: configuration.pingInterval),
                tls: tls, logger: logger)
        }
        let push = make(endpoint.pushHost, endpoint.pushPort)
        pushConnection = push
        broadcastConnection =
            (endpoint.broadcastHost, endpoint.broadcastPort) == (endpoint.pushHost, endpoint.pushPort)
            ? push : make(endpoint.broadcastHost, endpoint.broadcastPort)
        managementConnection =
            (endpoint.managementHost, endpoint.managementPort) == (endpoint.pushHost, endpoint.pushPort)
            ? push : make(endpoint.managementHost, endpoint.managementPort)
    }

    /// Connections opened to the push host so far.
    public var connectionsOpened: Int { pushConnection.connectionsOpened }

    /// APNs' clock minus this machine's, from the `Date` header of its latest answer that had one.
    public var providerClockOffset: Double? { pushConnection.peerClockOffset }

    /// Why the push host's most recent connections ended, oldest first.
    public var connectionEndReasons: [String] { pushConnection.connectionEndReasons }

    /// Closes every connection.
    public func shutdown() {
        pushConnection.shutdown()
        if broadcastConnection !== pushConnection { broadcastConnection.shutdown() }
        if managementConnection !== pushConnection { managementConnection.shutdown() }
    }

    // MARK: Sending

    /// Sends a built push and calls `completion` on a connection thread. The fast path for fan-out.
    /// An `ExpiredProviderToken` or `TooManyProviderTokenUpdates` answer retires that connection and
    /// sends again on another (with a new token after `ExpiredProviderToken`).
    public func send(_ push: APNsPush, completion: @escaping @Sendable (APNsSendResult) -> Void) {
        do throws(APNsRequestError) {
            try push.validate()
        } catch {
            completion(APNsSendResult(outcome: .invalid(error), latency: .zero, attempts: 0))
            return
        }
        attempt(push, number: 1, started: .now, completion: completion)
    }

    private func attempt(
        _ push: APNsPush, number: Int, started: ContinuousClock.Instant,
        completion: @escaping @Sendable (APNsSendResult) -> Void
    ) {
        let token: String
        let authorization: String
        do {
            (token, authorization) = try configuration.providerToken.currentWithHeader()
        } catch {
            completion(
                APNsSendResult(
                    outcome: .invalid(
                        APNsRequestError(.badTopic, field: "key", "cannot sign a provider token: \(error)")),
                    latency: .zero, attempts: number - 1))
            return
        }
        let request = HTTP2Request(
            method: "POST", path: push.path, headers: requestHeaders(push, authorization: authorization),
            body: push.payload, neverIndexPath: true)
        let connection: HTTP2Client
        if case .channel = push.destination { connection = broadcastConnection } else { connection = pushConnection }
        let hostEnvironment = configuration.endpoint.environment
        connection.execute(request) { [self] response in
            switch response {
            case .success(let response):
                let result = APNsResult(
                    status: response.status, headers: response.headers.map { ($0.name, $0.value) }, body: response.body,
                    tokenEnvironment: push.tokenEnvironment, hostEnvironment: hostEnvironment,
                    topicHadSuffix: push.hasLiveActivityTopic)
                if let reason = result.reason, Self.spoilsConnection(reason),
                    number <= configuration.maxConnections
                {
                    resendAfterTokenRefusal(
                        reason, token: token, connection: connection, id: response.connection, push: push,
                        number: number, started: started, completion: completion)
                    return
                }
                completion(APNsSendResult(outcome: .answered(result), latency: .now - started, attempts: number))
            case .failure(let error):
                completion(APNsSendResult(outcome: .transportFailure(error), latency: .now - started, attempts: number))
            }
        }
    }

    /// Whether APNs refused the provider token in a way that spoils the connection for what follows:
    /// it allows one token change per connection per 20 minutes, so sending again on the same
    /// connection (with a new token or the old) meets the same refusal until it is dead-lettered.
    static func spoilsConnection(_ reason: APNsReason) -> Bool {
        reason == .expiredProviderToken || reason == .tooManyProviderTokenUpdates
    }

    /// `ExpiredProviderToken` or `TooManyProviderTokenUpdates`: retire the connection, make a new token
    /// when the old one expired, and send again. A new connection takes any token as its first, and
    /// one connection per attempt is retired, so `maxConnections + 1` attempts reach a new one.
    private func resendAfterTokenRefusal(
        _ reason: APNsReason, token: String, connection: HTTP2Client, id: Int, push: APNsPush, number: Int,
        started: ContinuousClock.Instant, completion: @escaping @Sendable (APNsSendResult) -> Void
    ) {
        let renewed = reason == .expiredProviderToken && configuration.providerToken.renew(rejected: token)
        if connection.retire(connection: id) {
            logger.notice(
                "apns.connection_renewed",
                [
                    "reason": reason.rawValue, "connection": String(id),
                    "action": renewed
                        ? "a new provider token, sent on a new connection"
                        : "the current provider token, sent on a new connection",
                ])
        }
        attempt(push, number: number + 1, started: started, completion: completion)
    }

    /// A push's request headers. A device push with only the usual ones (topic, push type, priority)
    /// takes the array the last such push built when they and the provider token match: a fan-out
    /// sends thousands alike, and each built its own.
    private func requestHeaders(_ push: APNsPush, authorization: String) -> [HTTPHeader] {
        var plain = push.expiration == nil && push.apnsID == nil && push.collapseID == nil
        if case .channel = push.destination { plain = false }
        if plain, let last = lastPlainHeaders.withLock({ $0 }), last.authorization == authorization,
            last.topic == push.topic, last.pushType == push.pushType, last.priority == push.priority
        {
            return last.headers
        }
        var headers: [HTTPHeader] = []
        headers.reserveCapacity(7)
        headers.append(HTTPHeader("authorization", authorization))
        for header in push.headers { headers.append(HTTPHeader(header.name, header.value)) }
        if plain {
            lastPlainHeaders.withLock {
                $0 = PlainHeaders(
                    authorization: authorization, topic: push.topic, pushType: push.pushType, priority: push.priority,
                    headers: headers)
            }
        }
        return headers
    }

    /// Sends a built push and waits for the outcome.
    public func send(_ push: APNsPush) async -> APNsSendResult {
        await withCheckedContinuation { continuation in send(push) { continuation.resume(returning: $0) } }
    }

    /// Builds and sends a Live Activity push to a device token.
    ///
    /// - Parameters:
    ///   - timestamp: Unix seconds; defaults to now from the injected clock.
    public func sendLiveActivity<State: Encodable & Sendable>(
        to token: DeviceToken, event: LiveActivityEvent, contentState: State, timestamp: Int64? = nil,
        staleDate: Int64? = nil, dismissalDate: Int64? = nil, relevanceScore: Double? = nil,
        alert: LiveActivityAlert? = nil, start: LiveActivityStart? = nil, priority: Int = 10,
        expiration: Int64? = nil, tokenEnvironment: APNsEnvironment? = nil
    ) async throws -> APNsSendResult {
        let payload = LiveActivityPayload(
            event: event, timestamp: timestamp ?? clock.unixSeconds(), contentState: contentState,
            staleDate: staleDate, dismissalDate: dismissalDate, relevanceScore: relevanceScore, alert: alert,
            start: start)
        let push = APNsPush(
            deviceToken: token, bundleID: configuration.bundleID, payload: try payload.encoded(), priority: priority,
            expiration: expiration, tokenEnvironment: tokenEnvironment)
        return await send(push)
    }

    /// Starts a Live Activity of any `ActivityAttributes` type through its push-to-start token.
    public func startLiveActivity<Attributes: ActivityAttributes>(
        pushToStartToken token: DeviceToken, attributes: Attributes, contentState: Attributes.ContentState,
        alert: LiveActivityAlert, attributesType: String? = nil, inputPushToken: Bool = true,
        inputPushChannel: String? = nil, staleDate: Int64? = nil, relevanceScore: Double? = nil,
        tokenEnvironment: APNsEnvironment? = nil
    ) async throws -> APNsSendResult where Attributes.ContentState: Sendable {
        let start = try LiveActivityStart(
            attributes: attributes, attributesType: attributesType, inputPushToken: inputPushToken,
            inputPushChannel: inputPushChannel)
        return try await sendLiveActivity(
            to: token, event: .start, contentState: contentState, staleDate: staleDate, relevanceScore: relevanceScore,
            alert: alert, start: start, priority: 10, tokenEnvironment: tokenEnvironment)
    }

    // MARK: Channel management (iOS 18 broadcast)

    /// One channel-management request; `completion` runs on a connection thread, so callers that
    /// block (the server's registry and scheduler) never wait on the async executor.
    private func manage(
        method: String, path: String, channelID: String? = nil, body: [UInt8] = [],
        completion: @escaping @Sendable (Result<HTTP2Response, APNsChannelError>) -> Void
    ) {
        let token: String
        do { token = try configuration.providerToken.current() } catch {
            completion(.failure(.malformedResponse("cannot sign a provider token: \(error)")))
            return
        }
        var headers = [HTTPHeader("authorization", "bearer " + token)]
        if let channelID { headers.append(HTTPHeader("apns-channel-id", channelID)) }
        if !body.isEmpty { headers.append(HTTPHeader("content-type", "application/json")) }
        managementConnection.execute(HTTP2Request(method: method, path: path, headers: headers, body: body)) {
            completion($0.mapError { .transport($0) })
        }
    }

    private func manage(method: String, path: String, channelID: String? = nil, body: [UInt8] = [])
        async throws(APNsChannelError) -> HTTP2Response
    {
        let result: Result<HTTP2Response, APNsChannelError> = await withCheckedContinuation { continuation in
            manage(method: method, path: path, channelID: channelID, body: body) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    private func check(_ response: HTTP2Response, expect status: Int) throws(APNsChannelError) {
        guard response.status == status else {
            throw .rejected(
                APNsResult(
                    status: response.status, headers: response.headers.map { ($0.name, $0.value) }, body: response.body)
            )
        }
    }

    /// Creates a channel and returns its id.
    public func createChannel(policy: MessageStoragePolicy) async throws(APNsChannelError) -> String {
        let result: Result<String, APNsChannelError> = await withCheckedContinuation { continuation in
            createChannel(policy: policy) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Creates a channel; `completion` gets its id (on a connection thread).
    public func createChannel(
        policy: MessageStoragePolicy, completion: @escaping @Sendable (Result<String, APNsChannelError>) -> Void
    ) {
        manage(
            method: "POST", path: APNsChannelAPI.channelsPath(bundleID: configuration.bundleID),
            body: APNsChannelAPI.createBody(policy: policy)
        ) { [self] result in
            completion(
                result.flatMap { response in
                    do throws(APNsChannelError) { try check(response, expect: 201) } catch { return .failure(error) }
                    guard let id = response.headers.value(of: "apns-channel-id") else {
                        return .failure(.malformedResponse("APNs answered 201 without an apns-channel-id header"))
                    }
                    return .success(id)
                })
        }
    }

    /// Reads a channel's storage policy.
    public func readChannel(_ id: String) async throws(APNsChannelError) -> MessageStoragePolicy {
        let response = try await manage(
            method: "GET", path: APNsChannelAPI.channelsPath(bundleID: configuration.bundleID), channelID: id)
        try check(response, expect: 200)
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        guard let raw = object?["message-storage-policy"] as? Int, let policy = MessageStoragePolicy(rawValue: raw)
        else {
            throw .malformedResponse("the channel read answer has no message-storage-policy")
        }
        return policy
    }

    /// Lists every channel id of the app.
    public func listChannels() async throws(APNsChannelError) -> [String] {
        let response = try await manage(
            method: "GET", path: APNsChannelAPI.allChannelsPath(bundleID: configuration.bundleID))
        try check(response, expect: 200)
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return object?["channels"] as? [String] ?? []
    }

    /// Deletes a channel.
    public func deleteChannel(_ id: String) async throws(APNsChannelError) {
        let result: Result<Void, APNsChannelError> = await withCheckedContinuation { continuation in
            deleteChannel(id) { continuation.resume(returning: $0) }
        }
        try result.get()
    }

    /// Deletes a channel; `completion` runs on a connection thread.
    public func deleteChannel(_ id: String, completion: @escaping @Sendable (Result<Void, APNsChannelError>) -> Void) {
        manage(
            method: "DELETE", path: APNsChannelAPI.channelsPath(bundleID: configuration.bundleID), channelID: id
        ) { [self] result in
            completion(
                result.flatMap { response in
                    do throws(APNsChannelError) { try check(response, expect: 204) } catch { return .failure(error) }
                    return .success(())
                })
        }
    }
}
