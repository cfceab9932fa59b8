import DropTrackContract
import DropTrackCore
import DropTrackModel
import Foundation

/// FCM HTTP v1 limits and reserved names.
public enum FCMLimits {
    /// A message's data (keys plus values) for a token or condition target.
    public static let dataBytes = 4096
    /// The same for topic messages.
    public static let topicDataBytes = 2048
    /// Longest `ttl`: 28 days.
    public static let maximumTTLSeconds = 2_419_200
    /// Keys FCM refuses in `data`.
    public static let reservedKeys: Set<String> = ["from", "message_type"]
    /// Prefixes FCM refuses in `data` keys.
    public static let reservedPrefixes = ["google.", "gcm."]

    /// Why a data key is reserved, or nil when it is allowed.
    public static func reservation(of key: String) -> String? {
        if reservedKeys.contains(key) { return "'\(key)' is reserved by FCM" }
        if let prefix = reservedPrefixes.first(where: { key.hasPrefix($0) }) {
            return "keys starting with '\(prefix)' are reserved by FCM ('\(key)')"
        }
        return nil
    }

    /// Bytes a data map counts against the limit: its keys and values.
    public static func size(of data: [String: String]) -> Int {
        data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }
}

/// A message for `projects/{id}/messages:send`.
public struct FCMMessage: Sendable, Equatable {
    /// Who receives it: exactly one.
    public enum Target: Sendable, Equatable {
        /// One app instance's registration token.
        case token(DeviceToken)
        /// Every instance subscribed to a topic.
        case topic(String)
        /// Instances matching a topic condition.
        case condition(String)

        /// A token target from a token still held as a `String`; it is wrapped here, at once.
        public static func token(_ rawToken: String) -> Target { .token(DeviceToken(rawToken)) }
    }

    /// `android.priority`.
    public enum Priority: String, Sendable, Codable {
        case high, normal
    }

    /// Who receives it.
    public var target: Target
    /// The data map; values are strings.
    public var data: [String: String]
    /// `android.priority`; Live Updates need `high` to wake the device.
    public var priority: Priority?
    /// `android.ttl` in seconds (sub-second allowed); nil leaves FCM's 4-week default.
    public var ttl: Double?
    /// `android.collapse_key`.
    public var collapseKey: String?
    /// `apns.live_activity_token`: FCM's own path to an iOS Live Activity.
    public var liveActivityToken: DeviceToken?
    /// `apns.payload`: the APNs JSON (with `aps`) FCM forwards.
    public var apnsPayload: JSONValue?
    /// `apns.headers`.
    public var apnsHeaders: [String: String]

    /// Creates a message.
    public init(
        target: Target, data: [String: String] = [:], priority: Priority? = .high, ttl: Double? = nil,
        collapseKey: String? = nil, liveActivityToken: DeviceToken? = nil, apnsPayload: JSONValue? = nil,
        apnsHeaders: [String: String] = [:]
    ) {
        self.target = target
        self.data = data
        self.priority = priority
        self.ttl = ttl
        self.collapseKey = collapseKey
        self.liveActivityToken = liveActivityToken
        self.apnsPayload = apnsPayload
        self.apnsHeaders = apnsHeaders
    }

    /// A registration token as FCM issues them: printable ASCII without spaces, at most 4096 bytes.
    public static func isPlausibleToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 4096 && token.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
    }

    /// Checks what FCM would refuse, before sending, naming the key and the fix; throws the first
    /// problem.
    public func validate() throws(FCMRequestError) {
        if let first = validationErrors().first { throw first }
    }

    /// Every problem FCM would refuse the message for, in the order `validate()` checks them. The
    /// doctor reports them all; a sender only needs the first.
    public func validationErrors() -> [FCMRequestError] {
        var errors: [FCMRequestError] = []
        switch target {
        case .token(let token):
            if token.isEmpty || token.wireValue.contains(where: { $0.isWhitespace }) {
                errors.append(FCMRequestError(field: "message.token", "the registration token is empty or has spaces"))
            }
        case .topic(let topic):
            if topic.isEmpty || topic.hasPrefix("/topics/") {
                errors.append(FCMRequestError(field: "message.topic", "give the topic name without '/topics/'"))
            }
        case .condition(let condition):
            if condition.isEmpty {
                errors.append(FCMRequestError(field: "message.condition", "the condition is empty"))
            }
        }
        for key in data.keys.sorted() {
            if let reason = FCMLimits.reservation(of: key) {
                errors.append(FCMRequestError(field: "message.data.\(key)", "\(reason); rename the key"))
            }
        }
        let limit: Int
        if case .topic = target { limit = FCMLimits.topicDataBytes } else { limit = FCMLimits.dataBytes }
        let size = FCMLimits.size(of: data)
        if size > limit {
            errors.append(
                FCMRequestError(
                    field: "message.data", "the data map is \(size) bytes (keys plus values); FCM allows \(limit)"))
        }
        if let ttl, ttl < 0 || ttl > Double(FCMLimits.maximumTTLSeconds) {
            errors.append(FCMRequestError(field: "message.android.ttl", "ttl must be 0 to 2419200 seconds (28 days)"))
        }
        return errors
    }

    /// `ttl` as protobuf Duration JSON: `"30s"`, or `"1.500000000s"`.
    public static func durationString(_ seconds: Double) -> String {
        // Callers validate the range (0 to 28 days); saturating keeps a bad one from trapping here.
        let whole = Int64(saturating: seconds.rounded(.down))
        let nanos = Int64(saturating: ((seconds - Double(whole)) * 1e9).rounded())
        if nanos == 0 { return "\(whole)s" }
        let fraction = String(nanos)
        return "\(whole).\(String(repeating: "0", count: max(0, 9 - fraction.count)))\(fraction)s"
    }

    /// The request body `{"message": {...}, "validate_only"?: true}` with snake_case names, as
    /// the Admin SDKs send it.
    public func requestBody(validateOnly: Bool = false) -> [UInt8] {
        var message: [String: JSONValue] = [:]
        switch target {
        case .token(let token): message["token"] = .string(token.wireValue)
        case .topic(let topic): message["topic"] = .string(topic)
        case .condition(let condition): message["condition"] = .string(condition)
        }
        if !data.isEmpty { message["data"] = .object(data.mapValues { .string($0) }) }
        var android: [String: JSONValue] = [:]
        if let priority { android["priority"] = .string(priority.rawValue) }
        if let ttl { android["ttl"] = .string(FCMMessage.durationString(ttl)) }
        if let collapseKey { android["collapse_key"] = .string(collapseKey) }
        if !android.isEmpty { message["android"] = .object(android) }
        var apns: [String: JSONValue] = [:]
        if let liveActivityToken { apns["live_activity_token"] = .string(liveActivityToken.wireValue) }
        if let apnsPayload { apns["payload"] = apnsPayload }
        if !apnsHeaders.isEmpty { apns["headers"] = .object(apnsHeaders.mapValues { .string($0) }) }
        if !apns.isEmpty { message["apns"] = .object(apns) }
        var root: [String: JSONValue] = ["message": .object(message)]
        if validateOnly { root["validate_only"] = .bool(true) }
        return JSONValue.object(root).serialized()
    }
}

/// A message FCM would refuse, caught before sending.
public struct FCMRequestError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The field path, as FCM names it (`message.data.google.x`).
    public var field: String
    /// What is wrong and how to fix it.
    public var message: String

    public init(field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { message }
}

extension FCMMessage {
    /// FCM's own path to an iOS Live Activity: the app's FCM registration token as the target, the
    /// Live Activity (or push-to-start) token in `apns.live_activity_token`, and the APNs payload
    /// built by the same code as the APNs client, with Live Activity headers.
    public static func liveActivity<State: Encodable & Sendable>(
        registrationToken: DeviceToken, liveActivityToken: DeviceToken, payload: LiveActivityPayload<State>,
        priority: Int = 10
    ) throws -> FCMMessage {
        FCMMessage(
            target: .token(registrationToken), priority: nil, liveActivityToken: liveActivityToken,
            apnsPayload: try JSONValue.parse(bytes: try payload.encoded()),
            apnsHeaders: ["apns-priority": String(priority), "apns-push-type": "liveactivity"])
    }
}
