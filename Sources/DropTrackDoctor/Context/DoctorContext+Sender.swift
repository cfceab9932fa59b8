import DropTrackContract
import DropTrackModel
import DropTrackWire
import Foundation

/// The sender's side of a context document: its configuration, the broadcast channel, and the
/// provider's answer to explain a send afterwards.
extension DoctorContext {
    /// The sender's credentials and settings.
    public struct Configuration: Sendable, Codable, Equatable {
        /// How APNs authenticates the sender.
        public enum AuthMode: String, Sendable, Codable, CaseIterable {
            /// A `.p8` key and an ES256 JWT: what Live Activities need.
            case token
            /// A `.p12` certificate: not supported for Live Activities.
            case certificate
        }

        /// The bare bundle id the sender is configured with.
        public var bundleId: String?
        /// The environment of the APNs host it sends to (otherwise read from the request's host).
        public var environment: APNsEnvironment?
        /// Token or certificate authentication.
        public var authMode: AuthMode?
        /// The APNs key id (10 characters).
        public var keyId: String?
        /// The Apple team id (10 characters).
        public var teamId: String?
        /// The environment the key is restricted to; nil or `"both"` for an unrestricted key.
        public var keyEnvironment: APNsEnvironment?
        /// The topics a topic-specific key covers; nil for a team key.
        public var keyTopics: [String]?
        /// The broadcast capability is on for the bundle.
        public var broadcastEnabled: Bool?
        /// The Firebase project the sender uses.
        public var fcmProjectId: String?
        /// The scopes of the FCM access token.
        public var fcmScopes: [String]?
        /// How the Google service-account assertion is built.
        public var fcmAssertion: Assertion?
        /// The retry policy.
        public var retry: Retry?
        /// The per-request deadline in seconds; 0 means none.
        public var requestTimeoutSeconds: Double?
        /// The acceptable lag from accepting a change to sending it.
        public var lagTargetSeconds: Double?
        /// Priority-10 sends per activity per hour the sender allows itself (default 15).
        public var priority10Budget: Int?
        /// Activities per device before starts are expected to fail (default 5).
        public var maxActivitiesPerDevice: Int?
        /// How long an activity lives on the device (default 8 hours).
        public var activityLifetimeSeconds: Double?
        /// How long after a start the app should report it (default 60 seconds).
        public var confirmationTimeoutSeconds: Double?
        /// How long a finished domain object may keep its activity before an end is due (default 30 minutes).
        public var endAfterTerminalSeconds: Double?
        /// How old `aps.timestamp` may be at send time (default one hour).
        public var maxTimestampAgeSeconds: Double?
        /// The longest `ttl` an Android update should have (default 1 hour).
        public var updateTTLSeconds: Double?
        /// Local clock minus the provider's `Date` header, in seconds.
        public var clockSkewSeconds: Double?
        /// How often the provider JWT is minted again, in seconds.
        public var jwtRefreshSeconds: Double?
        /// The startup TLS handshake with Apple's hosts verified the chain.
        public var tlsVerified: Bool?

        /// How the OAuth assertion for Google is built.
        public struct Assertion: Sendable, Codable, Equatable {
            /// The JWT algorithm (`RS256`).
            public var alg: String?
            /// `exp − iat` in seconds.
            public var lifetimeSeconds: Double?
            /// The `aud` claim.
            public var audience: String?
            /// RSA padding: `pkcs1` (required) or `pss`.
            public var padding: String?

            /// Creates the description.
            public init(
                alg: String? = nil, lifetimeSeconds: Double? = nil, audience: String? = nil, padding: String? = nil
            ) {
                self.alg = alg
                self.lifetimeSeconds = lifetimeSeconds
                self.audience = audience
                self.padding = padding
            }
        }

        /// The retry policy.
        public struct Retry: Sendable, Codable, Equatable {
            /// Retries after the first attempt.
            public var maxRetries: Int?
            /// The HTTP statuses retried.
            public var retryStatuses: [Int]?
            /// Whether `Retry-After` is honoured.
            public var honorsRetryAfter: Bool?
            /// Layers that retry on their own (library and caller).
            public var layers: Int?

            /// Creates the description.
            public init(
                maxRetries: Int? = nil, retryStatuses: [Int]? = nil, honorsRetryAfter: Bool? = nil, layers: Int? = nil
            ) {
                self.maxRetries = maxRetries
                self.retryStatuses = retryStatuses
                self.honorsRetryAfter = honorsRetryAfter
                self.layers = layers
            }
        }

        /// Creates configuration facts.
        public init(
            bundleId: String? = nil, environment: APNsEnvironment? = nil, authMode: AuthMode? = nil,
            keyId: String? = nil, teamId: String? = nil, keyEnvironment: APNsEnvironment? = nil,
            keyTopics: [String]? = nil, broadcastEnabled: Bool? = nil, fcmProjectId: String? = nil,
            fcmScopes: [String]? = nil, fcmAssertion: Assertion? = nil, retry: Retry? = nil,
            requestTimeoutSeconds: Double? = nil, lagTargetSeconds: Double? = nil, priority10Budget: Int? = nil,
            maxActivitiesPerDevice: Int? = nil, activityLifetimeSeconds: Double? = nil,
            confirmationTimeoutSeconds: Double? = nil, endAfterTerminalSeconds: Double? = nil,
            maxTimestampAgeSeconds: Double? = nil, updateTTLSeconds: Double? = nil, clockSkewSeconds: Double? = nil,
            jwtRefreshSeconds: Double? = nil, tlsVerified: Bool? = nil
        ) {
            self.bundleId = bundleId
            self.environment = environment
            self.authMode = authMode
            self.keyId = keyId
            self.teamId = teamId
            self.keyEnvironment = keyEnvironment
            self.keyTopics = keyTopics
            self.broadcastEnabled = broadcastEnabled
            self.fcmProjectId = fcmProjectId
            self.fcmScopes = fcmScopes
            self.fcmAssertion = fcmAssertion
            self.retry = retry
            self.requestTimeoutSeconds = requestTimeoutSeconds
            self.lagTargetSeconds = lagTargetSeconds
            self.priority10Budget = priority10Budget
            self.maxActivitiesPerDevice = maxActivitiesPerDevice
            self.activityLifetimeSeconds = activityLifetimeSeconds
            self.confirmationTimeoutSeconds = confirmationTimeoutSeconds
            self.endAfterTerminalSeconds = endAfterTerminalSeconds
            self.maxTimestampAgeSeconds = maxTimestampAgeSeconds
            self.updateTTLSeconds = updateTTLSeconds
            self.clockSkewSeconds = clockSkewSeconds
            self.jwtRefreshSeconds = jwtRefreshSeconds
            self.tlsVerified = tlsVerified
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case bundleId, environment, authMode, keyId, teamId, keyEnvironment, keyTopics, broadcastEnabled
            case fcmProjectId, fcmScopes, fcmAssertion, retry, requestTimeoutSeconds, lagTargetSeconds
            case priority10Budget, maxActivitiesPerDevice, activityLifetimeSeconds, confirmationTimeoutSeconds
            case endAfterTerminalSeconds, maxTimestampAgeSeconds, updateTTLSeconds, clockSkewSeconds
            case jwtRefreshSeconds, tlsVerified
        }
    }

    /// The iOS 18 broadcast channel the push goes to.
    public struct Channel: Sendable, Codable, Equatable {
        /// The id exactly as the create call returned it.
        public var id: String?
        /// The environment it was created in.
        public var environment: APNsEnvironment?
        /// Its message storage policy (0: none stored, 1: most recent stored).
        public var storagePolicy: MessageStoragePolicy?
        /// Channels the app has in that environment (APNs allows 10,000).
        public var countInEnvironment: Int?
        /// Activities still listening on it.
        public var activeActivities: Int?

        /// Creates channel facts.
        public init(
            id: String? = nil, environment: APNsEnvironment? = nil, storagePolicy: MessageStoragePolicy? = nil,
            countInEnvironment: Int? = nil, activeActivities: Int? = nil
        ) {
            self.id = id
            self.environment = environment
            self.storagePolicy = storagePolicy
            self.countInEnvironment = countInEnvironment
            self.activeActivities = activeActivities
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id, environment, storagePolicy, countInEnvironment, activeActivities
        }
    }

    /// The provider's answer to the send, to explain it afterwards.
    public struct Response: Sendable, Codable, Equatable {
        /// The HTTP status (0 when the connection failed).
        public var status: Int?
        /// The APNs `reason`.
        public var reason: String?
        /// The APNs 410 `timestamp`: Unix milliseconds when the token became invalid.
        public var timestamp: Int64?
        /// The FCM error code (`FcmError.errorCode`, or the google.rpc status, or an OAuth `error`).
        public var fcmError: String?
        /// The provider's error message.
        public var message: String?
        /// `Retry-After` in seconds.
        public var retryAfter: Int?
        /// A transport failure: `goaway`, `reset`, `timeout`, `tls`.
        public var transportError: String?

        /// Creates the response facts.
        public init(
            status: Int? = nil, reason: String? = nil, timestamp: Int64? = nil, fcmError: String? = nil,
            message: String? = nil, retryAfter: Int? = nil, transportError: String? = nil
        ) {
            self.status = status
            self.reason = reason
            self.timestamp = timestamp
            self.fcmError = fcmError
            self.message = message
            self.retryAfter = retryAfter
            self.transportError = transportError
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case status, reason, timestamp, fcmError, message, retryAfter, transportError
        }
    }
}
