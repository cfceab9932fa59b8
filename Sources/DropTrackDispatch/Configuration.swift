import DropTrackContract
import DropTrackCore
import DropTrackSHA256
import DropTrackStore
import Foundation

/// One app (tenant): its bundle, provider credentials, API keys and schemas.
public struct AppConfiguration: Sendable, Codable, Equatable {
    /// APNs credentials.
    public struct APNs: Sendable, Codable, Equatable {
        /// The `.p8` key file.
        public var keyFile: String
        public var keyId: String
        public var teamId: String
        /// `sandbox` or `production`: which APNs host this app's tokens go to.
        public var environment: String
        public init(keyFile: String, keyId: String, teamId: String, environment: String) {
            self.keyFile = keyFile
            self.keyId = keyId
            self.teamId = teamId
            self.environment = environment
        }

        /// Spelt out (and listed) so a misspelt key in the file can be named.
        package enum CodingKeys: String, CodingKey, CaseIterable { case keyFile, keyId, teamId, environment }
    }

    /// FCM credentials.
    public struct FCM: Sendable, Codable, Equatable {
        /// The service-account JSON file.
        public var serviceAccountFile: String
        public init(serviceAccountFile: String) { self.serviceAccountFile = serviceAccountFile }

        /// Spelt out (and listed) so a misspelt key in the file can be named.
        package enum CodingKeys: String, CodingKey, CaseIterable { case serviceAccountFile }
    }

    /// A key that signs or verifies this app's device credentials (docs/device-api.md): exactly one
    /// of a public key (the app's backend mints with the private half) or a private key (DropTrack
    /// mints, and verifies with its public half).
    public struct DeviceKey: Sendable, Codable, Equatable {
        /// The JWS `kid` naming this key.
        public var kid: String
        /// A P-256 `-----BEGIN PUBLIC KEY-----` PEM file.
        public var publicKeyFile: String?
        /// A P-256 PKCS#8 private key file (`droptrack apps device-key rotate` writes one).
        public var privateKeyFile: String?
        public init(kid: String, publicKeyFile: String? = nil, privateKeyFile: String? = nil) {
            self.kid = kid
            self.publicKeyFile = publicKeyFile
            self.privateKeyFile = privateKeyFile
        }

        /// Spelt out (and listed) so a misspelt key in the file can be named.
        package enum CodingKeys: String, CodingKey, CaseIterable { case kid, publicKeyFile, privateKeyFile }

        /// A kid is what a JWS header carries and a file name may hold: 1–64 letters, digits, '-', '_' or '.'.
        public static func isValidKid(_ kid: String) -> Bool {
            !kid.isEmpty && kid.utf8.count <= 64 && kid != "." && kid != ".."
                && kid.unicodeScalars.allSatisfy {
                    $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0))
                }
        }
    }

    /// The app's id, used in API keys and logs.
    public var id: String
    /// The iOS bundle id (the APNs topic is `<bundleId>.push-type.liveactivity`).
    public var bundleId: String?
    public var apns: APNs?
    public var fcm: FCM?
    /// `sha256:<hex>` of each API key; the keys themselves are never stored.
    public var apiKeyHashes: [String]
    /// Content-state schemas by `attributes-type`, for the generic mapper.
    public var schemas: [String: AttributesSchema]?
    /// Priority-10 sends per activity per hour before extra ones go at 5 (default from the server).
    public var priority10PerHour: Int?
    /// The keys that sign or verify this app's device credentials.
    public var deviceKeys: [DeviceKey]?
    /// Endpoints told about outcomes (dead letters, invalidated tokens, ended activities, …).
    public var webhooks: [Webhook]?

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case id, bundleId, apns, fcm, apiKeyHashes, schemas, priority10PerHour, deviceKeys, webhooks
    }

    public init(
        id: String, bundleId: String? = nil, apns: APNs? = nil, fcm: FCM? = nil, apiKeyHashes: [String] = [],
        schemas: [String: AttributesSchema]? = nil, priority10PerHour: Int? = nil, deviceKeys: [DeviceKey]? = nil,
        webhooks: [Webhook]? = nil
    ) {
        self.deviceKeys = deviceKeys
        self.webhooks = webhooks
        self.id = id
        self.bundleId = bundleId
        self.apns = apns
        self.fcm = fcm
        self.apiKeyHashes = apiKeyHashes
        self.schemas = schemas
        self.priority10PerHour = priority10PerHour
    }

    /// A new API key for an app: `dt_<app>_<32 hex>`, and the hash to store.
    public static func newAPIKey(app: String) -> (key: String, hash: String) {
        let random = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let key = "dt_\(app)_\(String(hexEncoding: random))"
        return (key, hash(of: key))
    }

    /// The stored form of an API key.
    public static func hash(of key: String) -> String { "sha256:" + String(hexEncoding: SHA256.hash(Array(key.utf8))) }
}

/// The fields of a content-state (or attributes) a generic app declares, so the server refuses
/// wrong keys and types before anything is sent.
public struct AttributesSchema: Sendable, Codable, Equatable {
    /// One field's rule.
    public struct Field: Sendable, Codable, Equatable {
        /// `string`, `number`, `integer`, `boolean`, `date`, `object` or `array`.
        public var type: String
        /// May be absent or null.
        public var optional: Bool?
        /// For strings: the allowed values (a Swift enum's raw values).
        public var values: [String]?
        /// For objects: the nested fields (a nested Codable struct); without it, any object is taken.
        public var fields: [String: Field]?
        /// For arrays: every item's rule.
        public var items: Indirect<Field>?
        /// For objects with `fields`: groups of optional fields of which exactly one must be set.
        public var oneOf: [[String]]?
        public init(
            type: String, optional: Bool? = nil, values: [String]? = nil, fields: [String: Field]? = nil,
            items: Field? = nil, oneOf: [[String]]? = nil
        ) {
            self.type = type
            self.optional = optional
            self.values = values
            self.fields = fields
            self.items = items.map(Indirect.init)
            self.oneOf = oneOf
        }
    }

    /// The content-state's fields.
    public var contentState: [String: Field]
    /// The static attributes' fields (optional: without it, any object is taken).
    public var attributes: [String: Field]?
    /// `activitykit` (default) or `expo-widgets`, whose content-state is `{name, props: "<JSON>"}`.
    public var output: String?
    /// For expo-widgets: the widget name put in `name`.
    public var widgetName: String?
    /// For expo-widgets: several widgets sharing these props; a start picks one with `widget`.
    public var widgetNames: [String]?
    /// Groups of optional top-level content-state fields of which exactly one must be set.
    public var oneOf: [[String]]?
    /// A declarative mapper: how events change a per-activity record, and how the content-state is
    /// computed from it (DeclarativeMapper.swift, README "Any domain: declarative mappers").
    public var mapper: JSONValue?

    public init(
        contentState: [String: Field], attributes: [String: Field]? = nil, output: String? = nil,
        widgetName: String? = nil, widgetNames: [String]? = nil, oneOf: [[String]]? = nil, mapper: JSONValue? = nil
    ) {
        self.oneOf = oneOf
        self.mapper = mapper
        self.contentState = contentState
        self.attributes = attributes
        self.output = output
        self.widgetName = widgetName
        self.widgetNames = widgetNames
    }

    /// True when the content-state travels in expo-widgets' `{name, props}` wrapper.
    public var isExpoWidgets: Bool { output == "expo-widgets" }

    /// The expo-widgets widget names a start may show, `widgetName` first; empty when neither is given
    /// (the schema's own name is the widget's then).
    public var expoWidgetNames: [String] {
        var names = widgetName.map { [$0] } ?? []
        for name in widgetNames ?? [] where !names.contains(name) { names.append(name) }
        return names
    }
}

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
        var seen = Set<String>()
        for (index, app) in apps.enumerated() {
            guard !app.id.isEmpty, app.id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw ConfigurationError(key: "apps[\(index)].id", "an app id uses letters, digits and '-'")
            }
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

/// A configuration that cannot work, naming the key or variable.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    /// The configuration key or variable at fault.
    public var key: String?
    /// What is wrong and how to fix it.
    public var message: String
    public init(key: String?, _ message: String) {
        self.key = key
        self.message = message
    }
    /// The message, led by the key at fault when the message does not name it.
    public var description: String {
        guard let key, !message.contains(key) else { return message }
        return "\(key): \(message)"
    }

    package static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacingOccurrences(
                of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing key '\(path(context.codingPath + [key]))'"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            // Foundation's text ("Expected to decode Int but found a string instead") names Swift types.
            let found = context.debugDescription.components(separatedBy: "but found ").dropFirst().first?
                .components(separatedBy: " instead").first
            let article = found.map { $0.hasPrefix("a ") || $0.hasPrefix("an ") ? $0 : "a \($0)" }
            return "'\(path(context.codingPath))' must be \(plainName(of: type))\(article.map { ", not \($0)" } ?? "")"
        case .dataCorrupted(let context): return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    /// What a value of `type` is called in a JSON file.
    static func plainName(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type: "a whole number"
        case is Double.Type: "a number"
        case is [String].Type: "a list of strings"
        default: String(describing: type).hasPrefix("Array") ? "a list" : "an object"
        }
    }
}

extension ServerConfiguration {
    package enum CodingKeys: String, CodingKey, CaseIterable {
        case listen, store, apps, apnsHost, fcmBaseURL, caFile, maxBodyBytes, requestsPerSecondPerKey, maxInFlight
        case claimBatch, leaseSeconds, maxAttempts, maxAgeSeconds, backoffBaseSeconds, backoffMaxSeconds
        case priority10PerHour, schedulerIntervalSeconds, defaultStaleSeconds, maxActiveSeconds, fcmTTLSeconds,
            providerTimeoutSeconds, timelineRetentionDays, tokenRetentionDays, logLevel
        case maxConnections, maxConnectionsPerClient, maxEventStreamsPerKey, maxEventStreams
        case requestsPerSecondPerUser, console
        case allowLoopbackWebhooks, webhookMaxAttempts, webhookTimeoutSeconds
        case maxAudienceMembers, fanoutRangeMinimum
    }

    /// Every key is optional in the file; absent keys keep their defaults.
    public init(from decoder: any Decoder) throws {
        let defaults = ServerConfiguration()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            listen: try c.decodeIfPresent(String.self, forKey: .listen) ?? defaults.listen,
            store: try c.decodeIfPresent(String.self, forKey: .store) ?? defaults.store,
            apps: try c.decodeIfPresent([AppConfiguration].self, forKey: .apps) ?? [],
            apnsHost: try c.decodeIfPresent(String.self, forKey: .apnsHost),
            fcmBaseURL: try c.decodeIfPresent(String.self, forKey: .fcmBaseURL),
            caFile: try c.decodeIfPresent(String.self, forKey: .caFile),
            maxBodyBytes: try c.decodeIfPresent(Int.self, forKey: .maxBodyBytes) ?? defaults.maxBodyBytes,
            requestsPerSecondPerKey: try c.decodeIfPresent(Double.self, forKey: .requestsPerSecondPerKey)
                ?? defaults.requestsPerSecondPerKey,
            maxInFlight: try c.decodeIfPresent(Int.self, forKey: .maxInFlight) ?? defaults.maxInFlight,
            claimBatch: try c.decodeIfPresent(Int.self, forKey: .claimBatch) ?? defaults.claimBatch,
            leaseSeconds: try c.decodeIfPresent(Double.self, forKey: .leaseSeconds) ?? defaults.leaseSeconds,
            maxAttempts: try c.decodeIfPresent(Int.self, forKey: .maxAttempts) ?? defaults.maxAttempts,
            maxAgeSeconds: try c.decodeIfPresent(Double.self, forKey: .maxAgeSeconds) ?? defaults.maxAgeSeconds,
            backoffBaseSeconds: try c.decodeIfPresent(Double.self, forKey: .backoffBaseSeconds)
                ?? defaults.backoffBaseSeconds,
            backoffMaxSeconds: try c.decodeIfPresent(Double.self, forKey: .backoffMaxSeconds)
                ?? defaults.backoffMaxSeconds,
            priority10PerHour: try c.decodeIfPresent(Int.self, forKey: .priority10PerHour)
                ?? defaults.priority10PerHour,
            schedulerIntervalSeconds: try c.decodeIfPresent(Double.self, forKey: .schedulerIntervalSeconds)
                ?? defaults.schedulerIntervalSeconds,
            defaultStaleSeconds: try c.decodeIfPresent(Double.self, forKey: .defaultStaleSeconds)
                ?? defaults.defaultStaleSeconds,
            maxActiveSeconds: try c.decodeIfPresent(Double.self, forKey: .maxActiveSeconds)
                ?? defaults.maxActiveSeconds,
            fcmTTLSeconds: try c.decodeIfPresent(Double.self, forKey: .fcmTTLSeconds) ?? defaults.fcmTTLSeconds,
            timelineRetentionDays: try c.decodeIfPresent(Double.self, forKey: .timelineRetentionDays)
                ?? defaults.timelineRetentionDays,
            tokenRetentionDays: try c.decodeIfPresent(Double.self, forKey: .tokenRetentionDays)
                ?? defaults.tokenRetentionDays,
            logLevel: try c.decodeIfPresent(String.self, forKey: .logLevel) ?? defaults.logLevel,
            providerTimeoutSeconds: try c.decodeIfPresent(Double.self, forKey: .providerTimeoutSeconds)
                ?? defaults.providerTimeoutSeconds,
            maxConnections: try c.decodeIfPresent(Int.self, forKey: .maxConnections) ?? defaults.maxConnections,
            maxConnectionsPerClient: try c.decodeIfPresent(Int.self, forKey: .maxConnectionsPerClient)
                ?? defaults.maxConnectionsPerClient,
            maxEventStreamsPerKey: try c.decodeIfPresent(Int.self, forKey: .maxEventStreamsPerKey)
                ?? defaults.maxEventStreamsPerKey,
            maxEventStreams: try c.decodeIfPresent(Int.self, forKey: .maxEventStreams) ?? defaults.maxEventStreams,
            requestsPerSecondPerUser: try c.decodeIfPresent(Double.self, forKey: .requestsPerSecondPerUser)
                ?? defaults.requestsPerSecondPerUser,
            console: try c.decodeIfPresent(Bool.self, forKey: .console) ?? defaults.console,
            allowLoopbackWebhooks: try c.decodeIfPresent(Bool.self, forKey: .allowLoopbackWebhooks)
                ?? defaults.allowLoopbackWebhooks,
            webhookMaxAttempts: try c.decodeIfPresent(Int.self, forKey: .webhookMaxAttempts)
                ?? defaults.webhookMaxAttempts,
            webhookTimeoutSeconds: try c.decodeIfPresent(Double.self, forKey: .webhookTimeoutSeconds)
                ?? defaults.webhookTimeoutSeconds)
        maxAudienceMembers = try c.decodeIfPresent(Int.self, forKey: .maxAudienceMembers) ?? defaults.maxAudienceMembers
        fanoutRangeMinimum = try c.decodeIfPresent(Int.self, forKey: .fanoutRangeMinimum) ?? defaults.fanoutRangeMinimum
    }
}
