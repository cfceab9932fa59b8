import DropTrackContract
import DropTrackModel
import Foundation

/// One APNs answer as a typed value: status, ids, reason, the 410 timestamp, and the remedy.
public struct APNsResult: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// `apns-id` (echoed or made by APNs), or `apns-request-id` on broadcast and channel APIs.
    public var apnsID: String?
    /// `apns-unique-id`: sandbox only, for Apple's Push Notifications Console.
    public var apnsUniqueID: String?
    /// The reason, for any non-2xx answer.
    public var reason: APNsReason?
    /// For 410: when APNs learned the token stopped being valid.
    public var invalidatedAt: Date?
    /// `Retry-After`, when present.
    public var retryAfter: Duration?
    /// What to do next.
    public var remedy: PushRemedy
    /// True when `BadDeviceToken` came back for a token registered in the other environment: a
    /// configuration error, not a dead token.
    public var environmentMismatch: Bool

    /// True for 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// Reads an APNs response.
    ///
    /// - Parameters:
    ///   - tokenEnvironment: The environment the token was registered in, when known.
    ///   - hostEnvironment: The environment of the host that answered.
    ///   - topicHadSuffix: Whether the push used the `.push-type.liveactivity` topic; decides
    ///     whether `DeviceTokenNotForTopic` means a wrong topic or a dead token.
    public init(
        status: Int, headers: [(name: String, value: String)], body: [UInt8], tokenEnvironment: APNsEnvironment? = nil,
        hostEnvironment: APNsEnvironment? = nil, topicHadSuffix: Bool = true
    ) {
        self.status = status
        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
        apnsID = header("apns-id") ?? header("apns-request-id")
        apnsUniqueID = header("apns-unique-id")
        retryAfter = header("retry-after").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { .seconds($0) }
        environmentMismatch = false
        invalidatedAt = nil
        reason = nil
        guard !(200..<300).contains(status) else {
            remedy = .none
            return
        }
        let object = body.first == UInt8(ascii: "{") ? try? JSONValue.parse(bytes: body) : nil
        let reason = object?["reason"]?.stringValue.map(APNsReason.init(rawValue:)) ?? APNsResult.fallbackReason(status)
        self.reason = reason
        if let millis = object?["timestamp"]?.numberValue, status == 410 {
            invalidatedAt = Date(timeIntervalSince1970: millis / 1000)
        }
        var remedy = reason.remedy(retryAfter: retryAfter)
        if reason == .badDeviceToken, let tokenEnvironment, let hostEnvironment, tokenEnvironment != hostEnvironment {
            environmentMismatch = true
            remedy = .rejectRequest
        }
        if reason == .deviceTokenNotForTopic && topicHadSuffix { remedy = .deleteToken }
        self.remedy = remedy
    }

    private static func fallbackReason(_ status: Int) -> APNsReason {
        switch status {
        case 403: .forbidden
        case 404: .badPath
        case 405: .methodNotAllowed
        case 410: .unregistered
        case 413: .payloadTooLarge
        case 429: .tooManyRequests
        case 500: .internalServerError
        case 503: .serviceUnavailable
        default: .unknown("HTTP \(status)")
        }
    }

    /// One line for a person: the outcome, what it means, and what to do.
    public var explanation: String {
        // The common answer, without building a string per push.
        if status == 200 && reason == nil { return "accepted by APNs (200)" }
        guard let reason else { return "accepted by APNs (\(status))" }
        if environmentMismatch {
            return "\(status) BadDeviceToken: the token was registered for a different environment than this host. "
                + "This is a configuration error, not a dead token: send sandbox tokens to the sandbox host and "
                + "production tokens to production"
        }
        return "\(status) \(reason.rawValue): \(reason.meaning). Remedy: \(remedy.advice)"
    }
}
