/// The machine code of every refusal the server sends as `{"error": {"code", …}}`: a closed set, so a
/// code cannot be misspelt where it is raised, and a client's `switch` over the published list stays
/// complete. The raw value is the wire form, byte for byte.
public enum RefusalCode: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    // The request breaks its published shape (400).
    /// A field with a wrong value or type.
    case invalidField = "invalid_field"
    /// A required field that is absent.
    case missingField = "missing_field"
    /// The body is empty or not a JSON object.
    case invalidBody = "invalid_body"
    /// The body is not JSON.
    case malformedJSON = "malformed_json"

    // Nothing there (404, 405).
    /// Something that does not exist for this app.
    case notFound = "not_found"
    /// No endpoint at this path.
    case noRoute = "no_route"
    /// The endpoint takes another method.
    case methodNotAllowed = "method_not_allowed"

    // The request collides with the current state (409).
    /// A concurrent change won; retry.
    case conflict
    /// An activity with this id exists with other content.
    case activityExists = "activity_exists"
    /// The activity has ended.
    case activityEnded = "activity_ended"
    /// The activity is dismissed and its tokens discarded.
    case activityOver = "activity_over"
    /// The activity has no broadcast channel.
    case notBroadcast = "not_broadcast"
    /// The activity belongs to a user, not an audience.
    case notShared = "not_shared"
    /// The device id is registered for another user.
    case deviceTaken = "device_taken"
    /// An audience refresh is already running.
    case refreshRunning = "refresh_running"
    /// Device credentials need a signing key the server does not have.
    case noDeviceSigningKey = "no_device_signing_key"

    // Well-formed content that breaks a rule the published schema cannot state (422).
    /// Content the app's contracts, configuration or the clock refuse.
    case invalidContent = "invalid_content"
    /// An `ActivityAttributes` type the app does not know.
    case unknownAttributesType = "unknown_attributes_type"
    /// An event type the app's declarative mapper does not know.
    case unknownEventType = "unknown_event_type"
    /// A device action the activity does not offer.
    case unknownAction = "unknown_action"
    /// The payload is over the provider's limit.
    case payloadTooLarge = "payload_too_large"
    /// The app has no credentials for the provider.
    case noCredentials = "no_credentials"
    /// An audience with no member.
    case audienceEmpty = "audience_empty"
    /// An audience over the member limit.
    case audienceTooLarge = "audience_too_large"
    /// The app's declarative mapper configuration cannot map this event.
    case mapperConfig = "mapper_config"
    /// The mapper's record of the activity cannot take this event.
    case mapperRecord = "mapper_record"
    /// A raw push the provider would refuse.
    case invalidPush = "invalid_push"
    /// A Content-Type other than JSON.
    case unsupportedMediaType = "unsupported_media_type"

    // Who may ask (401, 403, 429).
    /// No API key or device credential.
    case unauthorized
    /// A device credential may not call this endpoint.
    case deviceNotAllowed = "device_not_allowed"
    /// A device credential naming another user.
    case otherUser = "other_user"
    /// A device credential naming another device.
    case otherDevice = "other_device"
    /// Too many requests from this credential.
    case rateLimited = "rate_limited"
    /// Too many event streams open.
    case tooManyStreams = "too_many_streams"
    /// The device credential is not a JWT.
    case credentialMalformed = "credential_malformed"
    /// The device credential is unsigned.
    case credentialUnsigned = "credential_unsigned"
    /// The device credential is signed with an algorithm other than ES256.
    case credentialAlgorithm = "credential_algorithm"
    /// The device credential names a key the server does not know.
    case credentialUnknownKey = "credential_unknown_key"
    /// The device credential's signature does not verify.
    case credentialBadSignature = "credential_bad_signature"
    /// The device credential's signature is not in low-S form.
    case credentialHighS = "credential_high_s"
    /// The device credential is for another app.
    case credentialWrongAudience = "credential_wrong_audience"
    /// The device credential has expired.
    case credentialExpired = "credential_expired"
    /// The device credential is not valid yet.
    case credentialNotYetValid = "credential_not_yet_valid"
    /// The device credential lives longer than the server accepts.
    case credentialTooLong = "credential_too_long"
    /// The device credential names an API key the app no longer has.
    case credentialKeyRotated = "credential_key_rotated"
    /// The device credential names no API key.
    case credentialKeyUnnamed = "credential_key_unnamed"
    /// The user's credentials were revoked.
    case credentialRevoked = "credential_revoked"
    /// The development dashboard's guard: a request from another site.
    case crossSiteRequest = "cross_site_request"
    /// The development dashboard's guard: a request from another origin.
    case originNotAllowed = "origin_not_allowed"
    /// The development dashboard's guard: a request for another host name.
    case hostNotAllowed = "host_not_allowed"

    // The server or a provider failed (500, 503).
    /// The store failed; retry shortly.
    case storeUnavailable = "store_unavailable"
    /// APNs' channel management failed; retry shortly.
    case channelUnavailable = "channel_unavailable"
    /// Every event stream slot is taken; retry shortly.
    case streamsExhausted = "streams_exhausted"
    /// A stored record cannot be read back.
    case corruptRecord = "corrupt_record"
    /// The device signing key could not sign.
    case signingFailed = "signing_failed"

    /// The wire form.
    public var description: String { rawValue }

    /// True for the refusals of a device credential (`credential_…`), which a client answers by
    /// getting a new credential from its backend.
    public var isCredential: Bool { rawValue.hasPrefix("credential_") }
}
