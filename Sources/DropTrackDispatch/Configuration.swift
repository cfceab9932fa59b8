import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackSHA256
import DropTrackStore
import Foundation

/// Everything `droptrack serve` is configured with: a JSON file plus `DROPTRACK_*` variables.
public struct ServerConfiguration: Sendable, Codable, Equatable {
    /// Where the HTTP API listens (`127.0.0.1:8787`).
    public var listen: String
    /// `sqlite:PATH`, `memory`, or `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (also `postgresql://`).
    public var store: String
    public var apps: [AppConfiguration]
    /// Sends every app's APNs traffic to this `HOST:PORT` (the emulator) instead of Apple.
    public var apnsHost: String?
    /// Sends every app's FCM traffic to this base URL (the emulator) instead of Google.
    public var fcmBaseURL: String?
    /// A CA file to trust for APNs and FCM (the emulators' development CA).
    public var caFile: String?
    /// Largest request body.
    public var maxBodyBytes: Int
    /// Requests per second per API key, with a burst of twice that.
    public var requestsPerSecondPerKey: Double
    /// Device-credential requests per second per user (bursts of 4× that, 20 at the default 5); 0 turns it off.
    public var requestsPerSecondPerUser: Double
    /// Sends in flight at most.
    public var maxInFlight: Int
    /// Outbox rows claimed per round per app (keeps apps fair: a big fan-out cannot starve a small app).
    public var claimBatch: Int
    /// How long a claim lasts; a crashed worker's rows come back after this.
    public var leaseSeconds: Double
    /// Attempts per send before it becomes a dead letter.
    public var maxAttempts: Int
    /// Age after which a send that keeps failing becomes a dead letter.
    public var maxAgeSeconds: Double
    /// First retry delay; doubles (with jitter) up to `backoffMaxSeconds`.
    public var backoffBaseSeconds: Double
    public var backoffMaxSeconds: Double
    /// Default priority-10 sends per activity per hour.
    public var priority10PerHour: Int
    /// How often the scheduler looks at timed work.
    public var schedulerIntervalSeconds: Double
    /// `stale-date` given to a version when the caller gives none (0 = none).
    public var defaultStaleSeconds: Double
    /// Longest an activity stays active before it is ended (ActivityKit's limit is 8 hours).
    public var maxActiveSeconds: Double
    /// `android.ttl` for Live Update messages.
    public var fcmTTLSeconds: Double
    /// Open HTTP connections at most; past it new ones get 503 at once.
    public var maxConnections: Int
    /// Open HTTP connections from one client address at most; past it new ones get 429 at once. Raise it when a
    /// reverse proxy on the same host brings every client from one address.
    public var maxConnectionsPerClient: Int
    /// `GET /v1/events` streams one API key may hold open; past it 429.
    public var maxEventStreamsPerKey: Int
    /// `GET /v1/events` streams open in all; past it 503. Kept below `maxConnections` so streams never take them all.
    public var maxEventStreams: Int
    /// How long a push waits for the provider's answer. A start still unanswered then is in doubt and
    /// never sent again; an update is retried.
    public var providerTimeoutSeconds: Double
    /// Timeline rows older than this are deleted by the scheduler (0 keeps them forever).
    public var timelineRetentionDays: Double
    /// Tokens invalidated longer ago than this are deleted by the scheduler (0 keeps them forever).
    public var tokenRetentionDays: Double
    /// Log level: trace, debug, info, notice, warning, error.
    public var logLevel: String
    /// Serve the operator console at `/console` (sign-in with an app's API key).
    public var console: Bool
    /// Lets webhook URLs be `http://127.0.0.1…` (tests and local development); otherwise only `https://`.
    public var allowLoopbackWebhooks: Bool
    /// Attempts per webhook delivery before it is given up (kept as failed).
    public var webhookMaxAttempts: Int
    /// How long a webhook delivery waits for the receiver's answer.
    public var webhookTimeoutSeconds: Double
    /// Networks (CIDR, `10.20.0.0/16`) a webhook may connect to although not public: a receiver on the
    /// operator's own network. Any other private, link-local or reserved address is refused.
    public var webhookAllowedNetworks: [String] = []
    /// The most users an audience start may resolve to: one start transaction enqueues a row per
    /// device of every member, so past this a broadcast channel is the way to reach everyone.
    public var maxAudienceMembers: Int = 100_000
    /// From this many valid update tokens an activity's events go out as fan-out range jobs; below it each
    /// token gets an outbox row, as ranges cost 16 claims per event whatever the audience (0: always ranges).
    public var fanoutRangeMinimum: Int = 1_000
    /// Folder of the dashboard's files (plain HTML, CSS and JS), when the server serves one.

    public init(
        listen: String = "127.0.0.1:8787", store: String = "sqlite:droptrack.sqlite", apps: [AppConfiguration] = [],
        apnsHost: String? = nil, fcmBaseURL: String? = nil, caFile: String? = nil, maxBodyBytes: Int = 256 * 1024,
        requestsPerSecondPerKey: Double = 200, maxInFlight: Int = 2000, claimBatch: Int = 500,
        leaseSeconds: Double = 60,
        maxAttempts: Int = 8, maxAgeSeconds: Double = 3600, backoffBaseSeconds: Double = 1,
        backoffMaxSeconds: Double = 300,
        priority10PerHour: Int = 12, schedulerIntervalSeconds: Double = 60, defaultStaleSeconds: Double = 0,
        maxActiveSeconds: Double = 8 * 3600, fcmTTLSeconds: Double = 600, timelineRetentionDays: Double = 30,
        tokenRetentionDays: Double = 30, logLevel: String = "info", providerTimeoutSeconds: Double = 10,
        maxConnections: Int = 1000, maxConnectionsPerClient: Int = 64, maxEventStreamsPerKey: Int = 10,
        maxEventStreams: Int = 200, requestsPerSecondPerUser: Double = 5, console: Bool = true,
        allowLoopbackWebhooks: Bool = false, webhookMaxAttempts: Int = 15, webhookTimeoutSeconds: Double = 10
    ) {
        self.console = console
        self.allowLoopbackWebhooks = allowLoopbackWebhooks
        self.webhookMaxAttempts = webhookMaxAttempts
        self.webhookTimeoutSeconds = webhookTimeoutSeconds
        self.requestsPerSecondPerUser = requestsPerSecondPerUser
        self.maxConnections = maxConnections
        self.maxConnectionsPerClient = maxConnectionsPerClient
        self.maxEventStreamsPerKey = maxEventStreamsPerKey
        self.maxEventStreams = maxEventStreams
        self.providerTimeoutSeconds = providerTimeoutSeconds
        self.listen = listen
        self.store = store
        self.apps = apps
        self.apnsHost = apnsHost
        self.fcmBaseURL = fcmBaseURL
        self.caFile = caFile
        self.maxBodyBytes = maxBodyBytes
        self.requestsPerSecondPerKey = requestsPerSecondPerKey
        self.maxInFlight = maxInFlight
        self.claimBatch = claimBatch
        self.leaseSeconds = leaseSeconds
        self.maxAttempts = maxAttempts
        self.maxAgeSeconds = maxAgeSeconds
        self.backoffBaseSeconds = backoffBaseSeconds
        self.backoffMaxSeconds = backoffMaxSeconds
        self.priority10PerHour = priority10PerHour
        self.schedulerIntervalSeconds = schedulerIntervalSeconds
        self.defaultStaleSeconds = defaultStaleSeconds
        self.maxActiveSeconds = maxActiveSeconds
        self.fcmTTLSeconds = fcmTTLSeconds
        self.timelineRetentionDays = timelineRetentionDays
        self.tokenRetentionDays = tokenRetentionDays
        self.logLevel = logLevel
    }

    /// Checks the whole configuration, naming the key at fault.
    public func validate() throws(ConfigurationError) {
        guard LogLevel(name: logLevel) != nil else {
            throw ConfigurationError(key: "logLevel", "logLevel must be trace, debug, info, notice, warning or error")
        }
        guard
            store == "memory" || store.hasPrefix("sqlite:") || store.hasPrefix("postgres://")
                || store.hasPrefix("postgresql://")
        else {
            // A mistyped scheme ("postgress://") still carries a password: never echo it.
            throw ConfigurationError(
                key: "store",
                "store must be sqlite:PATH, memory or postgres://…, not '\(PostgresStore.redactingPassword(in: store))'"
            )
        }
        guard fanoutRangeMinimum >= 0 else {
            throw ConfigurationError(
                key: "fanoutRangeMinimum",
                "fanoutRangeMinimum is a token count: 0 or more (0 sends every fan-out by ranges)")
        }
        guard maxInFlight > 0, claimBatch > 0, maxAttempts > 0, leaseSeconds > 0 else {
            throw ConfigurationError(
                key: "maxInFlight", "maxInFlight, claimBatch, maxAttempts and leaseSeconds must be positive")
        }
        guard maxConnections > 0, maxConnectionsPerClient > 0, maxEventStreamsPerKey > 0, maxEventStreams > 0 else {
            throw ConfigurationError(
                key: "maxConnections",
                "maxConnections, maxConnectionsPerClient, maxEventStreamsPerKey and maxEventStreams must be positive")
        }
        guard maxEventStreams < maxConnections else {
            throw ConfigurationError(
                key: "maxEventStreams",
                "maxEventStreams (\(maxEventStreams)) must stay below maxConnections (\(maxConnections)), or event streams could take every connection and shut out every API call"
            )
        }
        guard providerTimeoutSeconds > 0, providerTimeoutSeconds <= 300 else {
            throw ConfigurationError(
                key: "providerTimeoutSeconds", "providerTimeoutSeconds must be more than 0 and at most 300 seconds")
        }
        guard timelineRetentionDays >= 0 else {
            throw ConfigurationError(
                key: "timelineRetentionDays", "timelineRetentionDays must be 0 (keep forever) or a number of days")
        }
        guard requestsPerSecondPerUser >= 0 else {
            throw ConfigurationError(
                key: "requestsPerSecondPerUser", "requestsPerSecondPerUser must be 0 (no limit) or a positive rate")
        }
        guard tokenRetentionDays >= 0 else {
            throw ConfigurationError(
                key: "tokenRetentionDays", "tokenRetentionDays must be 0 (keep forever) or a number of days")
        }
        try validateWebhookLimits()
        var seen = Set<String>()
        for (index, app) in apps.enumerated() {
            guard AppID(app.id) != nil else { throw ConfigurationError(key: "apps[\(index)].id", AppID.rule) }
            guard seen.insert(app.id).inserted else {
                throw ConfigurationError(key: "apps[\(index)].id", "app id \(app.id) appears twice")
            }
            if let apns = app.apns {
                guard app.bundleId != nil else {
                    throw ConfigurationError(
                        key: "apps[\(index)].bundleId", "app \(app.id) has APNs credentials but no bundleId")
                }
                guard apns.environment == "sandbox" || apns.environment == "production" else {
                    throw ConfigurationError(
                        key: "apps[\(index)].apns.environment", "environment must be sandbox or production")
                }
            }
            for hash in app.apiKeyHashes where !hash.hasPrefix("sha256:") {
                throw ConfigurationError(
                    key: "apps[\(index)].apiKeyHashes", "API keys are stored as sha256:<hex> hashes")
            }
            try Self.validateDeviceKeys(app.deviceKeys ?? [], at: "apps[\(index)].deviceKeys")
            try validateWebhooks(app.webhooks ?? [], at: "apps[\(index)].webhooks")
            for (type, schema) in (app.schemas ?? [:]).sorted(by: { $0.key < $1.key }) {
                try schema.validate(at: "apps[\(index)].schemas.\(type)", type: type)
            }
        }
    }
}

extension ServerConfiguration {
    /// Each kid once, each entry exactly one key file.
    static func validateDeviceKeys(_ keys: [AppConfiguration.DeviceKey], at path: String) throws(ConfigurationError) {
        var kids = Set<String>()
        for (index, key) in keys.enumerated() {
            let field = "\(path)[\(index)]"
            guard AppConfiguration.DeviceKey.isValidKid(key.kid) else {
                throw ConfigurationError(
                    key: "\(field).kid", "\(field).kid must be 1-64 letters, digits, '-', '_' or '.'")
            }
            guard kids.insert(key.kid).inserted else {
                throw ConfigurationError(
                    key: "\(field).kid",
                    "\(field).kid '\(key.kid)' appears twice; remove one (droptrack apps device-key remove)")
            }
            guard (key.publicKeyFile == nil) != (key.privateKeyFile == nil) else {
                throw ConfigurationError(
                    key: field, "\(field) must name exactly one of publicKeyFile or privateKeyFile")
            }
        }
    }
}
