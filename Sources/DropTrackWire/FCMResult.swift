import DropTrackContract
import Foundation

/// `FcmError.errorCode`, plus the google.rpc statuses FCM answers without one. Raw values are
/// Google's exact strings.
public enum FCMErrorCode: Hashable, Sendable, CustomStringConvertible {
    case unspecifiedError
    case invalidArgument
    case unregistered
    case senderIdMismatch
    case quotaExceeded
    case unavailable
    case `internal`
    case thirdPartyAuthError
    case apnsAuthError
    /// 401 without FcmError: a missing, bad or expired access token.
    case unauthenticated
    /// 403 without FcmError: IAM role missing or the FCM API disabled.
    case permissionDenied
    /// 429 without FcmError: the project quota (Service Control).
    case resourceExhausted
    /// 404 without FcmError.
    case notFound
    /// Anything else, kept verbatim.
    case unknown(String)

    /// The `FcmError` codes Google documents.
    public static let fcmErrorCodes: [FCMErrorCode] = [
        .unspecifiedError, .invalidArgument, .unregistered, .senderIdMismatch, .quotaExceeded, .unavailable, .internal,
        .thirdPartyAuthError, .apnsAuthError,
    ]

    /// Google's string.
    public var rawValue: String {
        switch self {
        case .unspecifiedError: "UNSPECIFIED_ERROR"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .unregistered: "UNREGISTERED"
        case .senderIdMismatch: "SENDER_ID_MISMATCH"
        case .quotaExceeded: "QUOTA_EXCEEDED"
        case .unavailable: "UNAVAILABLE"
        case .internal: "INTERNAL"
        case .thirdPartyAuthError: "THIRD_PARTY_AUTH_ERROR"
        case .apnsAuthError: "APNS_AUTH_ERROR"
        case .unauthenticated: "UNAUTHENTICATED"
        case .permissionDenied: "PERMISSION_DENIED"
        case .resourceExhausted: "RESOURCE_EXHAUSTED"
        case .notFound: "NOT_FOUND"
        case .unknown(let value): value
        }
    }

    /// Maps Google's string.
    public init(rawValue: String) {
        let all: [FCMErrorCode] =
            FCMErrorCode.fcmErrorCodes + [.unauthenticated, .permissionDenied, .resourceExhausted, .notFound]
        self = all.first { $0.rawValue == rawValue } ?? .unknown(rawValue)
    }

    /// The HTTP status FCM uses for the code.
    public var status: Int {
        switch self {
        case .invalidArgument, .unspecifiedError, .unknown: 400
        case .unregistered, .notFound: 404
        case .senderIdMismatch, .permissionDenied: 403
        case .quotaExceeded, .resourceExhausted: 429
        case .unavailable: 503
        case .internal: 500
        case .thirdPartyAuthError, .apnsAuthError, .unauthenticated: 401
        }
    }

    /// The google.rpc status name that goes with the code.
    public var rpcStatus: String {
        switch status {
        case 400: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 429: "RESOURCE_EXHAUSTED"
        case 503: "UNAVAILABLE"
        default: "INTERNAL"
        }
    }

    /// What the code means, in plain words.
    public var meaning: String {
        switch self {
        case .unspecifiedError: "FCM gave no detail"
        case .invalidArgument:
            "the request is invalid (token format, package name, size, data key, ttl, or field types)"
        case .unregistered: "the registration token is no longer valid (app uninstalled, token expired or rotated)"
        case .senderIdMismatch: "the token belongs to a different Firebase project or sender"
        case .quotaExceeded: "a message-rate quota was exceeded (project, device or topic)"
        case .unavailable: "FCM is overloaded"
        case .internal: "FCM had an internal error"
        case .thirdPartyAuthError, .apnsAuthError:
            "the APNs or web-push credentials in the Firebase project are invalid or missing"
        case .unauthenticated: "the OAuth2 access token is missing, malformed or expired"
        case .permissionDenied: "the service account may not send (missing IAM role, or the FCM API is disabled)"
        case .resourceExhausted: "the project's send quota is used up"
        case .notFound: "the project or resource does not exist"
        case .unknown(let value): "FCM answered \(value), which this version does not know"
        }
    }

    public var description: String { rawValue }
}

/// One FCM answer as a typed value.
public struct FCMResult: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// `projects/{p}/messages/{id}` on success.
    public var messageName: String?
    /// The error code, for any non-2xx answer.
    public var errorCode: FCMErrorCode?
    /// The google.rpc `status` string.
    public var rpcStatus: String?
    /// Google's message.
    public var message: String?
    /// `Retry-After`, when present.
    public var retryAfter: Duration?
    /// What to do next.
    public var remedy: PushRemedy
    /// True when an INVALID_ARGUMENT names the registration token itself, so the token is dead.
    public var tokenInvalid: Bool

    /// True for 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// Reads an FCM `messages:send` answer.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        retryAfter = headers.first { $0.name == "retry-after" }
            .flatMap { Int($0.value.trimmingCharacters(in: .whitespaces)) }.map { .seconds($0) }
        messageName = nil
        errorCode = nil
        rpcStatus = nil
        message = nil
        tokenInvalid = false
        let json = try? JSONValue.parse(bytes: body)
        if (200..<300).contains(status) {
            messageName = json?["name"]?.stringValue
            remedy = .none
            return
        }
        let error = json?["error"]
        rpcStatus = error?["status"]?.stringValue
        message = error?["message"]?.stringValue
        let fcmCode = error?["details"]?.arrayValue?.first {
            $0["@type"]?.stringValue?.hasSuffix("google.firebase.fcm.v1.FcmError") == true
        }?["errorCode"]?.stringValue
        let code =
            fcmCode.map(FCMErrorCode.init(rawValue:)) ?? rpcStatus.map(FCMErrorCode.init(rawValue:))
            ?? FCMResult.fallback(status)
        errorCode = code
        let mentionsToken = (message ?? "").lowercased().contains("registration token")
        tokenInvalid = code == .invalidArgument && mentionsToken
        remedy = FCMResult.remedy(for: code, status: status, retryAfter: retryAfter, tokenInvalid: tokenInvalid)
    }

    private static func fallback(_ status: Int) -> FCMErrorCode {
        switch status {
        case 400: .invalidArgument
        case 401: .unauthenticated
        case 403: .permissionDenied
        case 404: .notFound
        case 429: .resourceExhausted
        case 503: .unavailable
        case 500...599: .internal
        default: .unknown("HTTP \(status)")
        }
    }

    /// Google's guidance as remedies: UNREGISTERED and SENDER_ID_MISMATCH drop the token;
    /// INVALID_ARGUMENT drops it only when it names the token; quota waits at least 60 s;
    /// UNAVAILABLE and INTERNAL retry honouring Retry-After; 401 refreshes the access token.
    public static func remedy(
        for code: FCMErrorCode, status: Int, retryAfter: Duration?, tokenInvalid: Bool
    ) -> PushRemedy {
        switch code {
        case .unregistered, .senderIdMismatch: return .deleteToken
        case .invalidArgument: return tokenInvalid ? .deleteToken : .rejectRequest
        case .quotaExceeded, .resourceExhausted: return .retry(after: max(retryAfter ?? .seconds(60), .seconds(60)))
        case .unavailable, .internal: return .retry(after: retryAfter)
        case .unauthenticated: return .refreshCredentials
        case .thirdPartyAuthError, .apnsAuthError, .permissionDenied, .notFound, .unspecifiedError:
            return .rejectRequest
        case .unknown: return status >= 500 ? .retry(after: retryAfter) : .rejectRequest
        }
    }

    /// One line for a person.
    public var explanation: String {
        guard let errorCode else { return "accepted by FCM (\(status))\(messageName.map { ": \($0)" } ?? "")" }
        var line = "\(status) \(errorCode.rawValue): \(errorCode.meaning)"
        if let message, !message.isEmpty { line += " (\(message))" }
        switch errorCode {
        case .thirdPartyAuthError, .apnsAuthError, .permissionDenied:
            line += ". This is a configuration error: fix the credentials or project settings, not the message"
        default: break
        }
        return line + ". Remedy: \(remedy.advice)"
    }
}
