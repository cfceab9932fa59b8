/// Every `reason` APNs documents for device pushes, broadcasts and channel management, plus
/// `unknown` for strings Apple adds later. Raw values are Apple's exact strings.
public enum APNsReason: Hashable, Sendable, CustomStringConvertible {
    case badCollapseId
    case badDeviceToken
    case badExpirationDate
    case badMessageId
    case badPriority
    case badTopic
    case deviceTokenNotForTopic
    case duplicateHeaders
    case idleTimeout
    case invalidPushType
    case missingDeviceToken
    case missingTopic
    case payloadEmpty
    case topicDisallowed
    case badCertificate
    case badCertificateEnvironment
    case expiredProviderToken
    case forbidden
    case invalidProviderToken
    case missingProviderToken
    case unrelatedKeyIdInToken
    case badEnvironmentKeyIdInToken
    case badPath
    case methodNotAllowed
    case expiredToken
    case unregistered
    case payloadTooLarge
    case tooManyProviderTokenUpdates
    case tooManyRequests
    case internalServerError
    case serviceUnavailable
    case shutdown
    // Broadcast and channel management (iOS 18).
    case featureNotEnabled
    case missingChannelId
    case badChannelId
    case channelNotRegistered
    case badRequestParams
    case badRequestPayload
    case missingPushType
    case cannotCreateChannelConfig
    case topicMismatch
    /// A reason this table does not know yet, kept verbatim.
    case unknown(String)

    /// Every documented reason, for tests and the docs.
    public static let documented: [APNsReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed, .badCertificate, .badCertificateEnvironment,
        .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken,
        .badEnvironmentKeyIdInToken, .badPath, .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
        .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams,
        .badRequestPayload, .missingPushType, .cannotCreateChannelConfig, .topicMismatch,
    ]

    /// Apple's string for the reason.
    public var rawValue: String {
        switch self {
        case .badCollapseId: "BadCollapseId"
        case .badDeviceToken: "BadDeviceToken"
        case .badExpirationDate: "BadExpirationDate"
        case .badMessageId: "BadMessageId"
        case .badPriority: "BadPriority"
        case .badTopic: "BadTopic"
        case .deviceTokenNotForTopic: "DeviceTokenNotForTopic"
        case .duplicateHeaders: "DuplicateHeaders"
        case .idleTimeout: "IdleTimeout"
        case .invalidPushType: "InvalidPushType"
        case .missingDeviceToken: "MissingDeviceToken"
        case .missingTopic: "MissingTopic"
        case .payloadEmpty: "PayloadEmpty"
        case .topicDisallowed: "TopicDisallowed"
        case .badCertificate: "BadCertificate"
        case .badCertificateEnvironment: "BadCertificateEnvironment"
        case .expiredProviderToken: "ExpiredProviderToken"
        case .forbidden: "Forbidden"
        case .invalidProviderToken: "InvalidProviderToken"
        case .missingProviderToken: "MissingProviderToken"
        case .unrelatedKeyIdInToken: "UnrelatedKeyIdInToken"
        case .badEnvironmentKeyIdInToken: "BadEnvironmentKeyIdInToken"
        case .badPath: "BadPath"
        case .methodNotAllowed: "MethodNotAllowed"
        case .expiredToken: "ExpiredToken"
        case .unregistered: "Unregistered"
        case .payloadTooLarge: "PayloadTooLarge"
        case .tooManyProviderTokenUpdates: "TooManyProviderTokenUpdates"
        case .tooManyRequests: "TooManyRequests"
        case .internalServerError: "InternalServerError"
        case .serviceUnavailable: "ServiceUnavailable"
        case .shutdown: "Shutdown"
        case .featureNotEnabled: "FeatureNotEnabled"
        case .missingChannelId: "MissingChannelId"
        case .badChannelId: "BadChannelId"
        case .channelNotRegistered: "ChannelNotRegistered"
        case .badRequestParams: "BadRequestParams"
        case .badRequestPayload: "BadRequestPayload"
        case .missingPushType: "MissingPushType"
        case .cannotCreateChannelConfig: "CannotCreateChannelConfig"
        case .topicMismatch: "TopicMismatch"
        case .unknown(let value): value
        }
    }

    /// Maps Apple's string to a case. Apple's broadcast table spells one reason
    /// "Service Unavailable", and APNSwift knows a "BadEnvironmentKeyInToken" variant: both map.
    public init(rawValue: String) {
        switch rawValue {
        case "Service Unavailable": self = .serviceUnavailable
        case "BadEnvironmentKeyInToken": self = .badEnvironmentKeyIdInToken
        default: self = APNsReason.documented.first { $0.rawValue == rawValue } ?? .unknown(rawValue)
        }
    }

    /// The HTTP status APNs answers with for this reason.
    public var status: Int {
        switch self {
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .topicMismatch:
            403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .expiredToken, .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: 429
        case .internalServerError: 500
        case .serviceUnavailable, .shutdown: 503
        case .unknown: 400
        default: 400
        }
    }

    /// What this reason means, in plain words.
    public var meaning: String {
        switch self {
        case .badCollapseId: "the apns-collapse-id header is longer than 64 bytes"
        case .badDeviceToken: "the device token is invalid, or belongs to the other environment (sandbox vs production)"
        case .badExpirationDate: "apns-expiration is not a valid Unix time (on a no-storage channel it must be 0)"
        case .badMessageId: "apns-id is not a lowercase canonical UUID"
        case .badPriority: "apns-priority is not an allowed value (5 or 10 for Live Activities)"
        case .badTopic: "apns-topic is invalid"
        case .deviceTokenNotForTopic:
            "the token does not belong to this topic: Live Activity pushes need apns-topic <bundle>.push-type.liveactivity"
        case .duplicateHeaders: "a header was sent twice"
        case .idleTimeout: "the connection sat idle too long"
        case .invalidPushType: "apns-push-type is not valid here (Live Activities use liveactivity)"
        case .missingDeviceToken: "the path has no device token"
        case .missingTopic: "apns-topic is missing"
        case .payloadEmpty: "the body is empty"
        case .topicDisallowed:
            "pushing to this topic is not allowed: the bundle id is not one of the key's team, or a certificate was used where Live Activities need token auth"
        case .badCertificate: "the client certificate is invalid"
        case .badCertificateEnvironment: "the client certificate is for the other environment"
        case .expiredProviderToken: "the provider token's iat is more than an hour old"
        case .forbidden: "the action is not allowed"
        case .invalidProviderToken:
            "the provider token is not valid: wrong key id, team id or signature, or the key was revoked"
        case .missingProviderToken: "no authorization header and no client certificate"
        case .unrelatedKeyIdInToken: "the token's key is not related to the key this connection first used"
        case .badEnvironmentKeyIdInToken: "the signing key is restricted to the other environment"
        case .badPath: "the request path is not an APNs path"
        case .methodNotAllowed: "APNs only accepts POST here"
        case .expiredToken: "the device token has expired"
        case .unregistered: "the device token is no longer active for the topic"
        case .payloadTooLarge: "the payload is over the limit (4096 bytes, 5120 for broadcasts)"
        case .tooManyProviderTokenUpdates: "the provider token changed more than once in 20 minutes on this connection"
        case .tooManyRequests: "too many requests in a row to the same device token"
        case .internalServerError: "APNs had an internal error"
        case .serviceUnavailable: "APNs is unavailable"
        case .shutdown: "the APNs server is shutting down"
        case .featureNotEnabled: "the broadcast capability is not enabled for this app id"
        case .missingChannelId: "apns-channel-id is missing"
        case .badChannelId: "apns-channel-id is badly encoded or too long"
        case .channelNotRegistered: "the channel does not exist (deleted, or never created in this environment)"
        case .badRequestParams: "the JSON request has an unknown attribute"
        case .badRequestPayload: "the JSON request cannot be parsed"
        case .missingPushType: "apns-push-type is missing"
        case .cannotCreateChannelConfig: "the app has reached its channel limit (10,000 per environment)"
        case .topicMismatch: "the key's bundle ids do not include the bundle id in the path"
        case .unknown(let value): "APNs answered \(value), which this version does not know"
        }
    }

    public var description: String { rawValue }
}
