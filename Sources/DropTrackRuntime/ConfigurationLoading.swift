import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackStore
import DropTrackWire
import Foundation

/// Where the server's configuration comes from: a JSON file, then `DROPTRACK_*` variables over it. The
/// composition root reads it; the domain only receives the result (and checks it with `validate`).
extension ServerConfiguration {
    /// Every key the file may hold, its environment variable (`-`: none) and its meaning: the one list that
    /// `refuseUnknownKeys` is tested against and `droptrack config keys` prints (docs/reference/configuration.md).
    /// Types and defaults are not written here: `ConfigurationReference` reads them from `ServerConfiguration()`.
    public static let keys: [(key: String, variable: String, help: String)] = [
        ("listen", "DROPTRACK_LISTEN", "HTTP API address, HOST:PORT"),
        (
            "store", "DROPTRACK_STORE",
            "sqlite:PATH, memory, or postgres://USER:PASSWORD@HOST:PORT/DATABASE (also postgresql://) for several servers sharing one database"
        ),
        (
            "apnsHost", "DROPTRACK_APNS_HOST",
            "HOST:PORT for every app's APNs traffic, whatever the token's environment (an emulator); when unset, Apple's sandbox or production host, chosen per token by the environment it was registered with (broadcasts and channels: the app's environment)"
        ),
        (
            "fcmBaseURL", "DROPTRACK_FCM_BASE_URL",
            "base URL for every app's FCM traffic (an emulator); when unset, https://fcm.googleapis.com"
        ),
        (
            "caFile", "DROPTRACK_CA_FILE",
            "a CA file to trust for APNs and FCM (an emulator's); the real providers are checked against the system's CA store"
        ),
        ("maxBodyBytes", "DROPTRACK_MAX_BODY_BYTES", "largest request body in bytes; larger ones get 413"),
        (
            "requestsPerSecondPerKey", "DROPTRACK_REQUESTS_PER_SECOND_PER_KEY",
            "API requests per second per key, bursts to twice that; 0 turns limiting off"
        ),
        (
            "requestsPerSecondPerUser", "DROPTRACK_REQUESTS_PER_SECOND_PER_USER",
            "device-credential requests per second per user of an app, bursts to four times that; 0 turns limiting off"
        ),
        ("maxInFlight", "DROPTRACK_MAX_IN_FLIGHT", "sends in flight at most"),
        ("claimBatch", "DROPTRACK_CLAIM_BATCH", "outbox rows claimed per app per round: the fairness quantum"),
        (
            "leaseSeconds", "DROPTRACK_LEASE_SECONDS",
            "how long a claim holds a row; a dead worker's rows come back after it"
        ),
        ("maxAttempts", "DROPTRACK_MAX_ATTEMPTS", "attempts (answers from the provider) before a dead letter"),
        ("maxAgeSeconds", "DROPTRACK_MAX_AGE_SECONDS", "age at which a failing send becomes a dead letter"),
        (
            "backoffBaseSeconds", "DROPTRACK_BACKOFF_BASE_SECONDS",
            "first retry delay, doubled each attempt, with jitter"
        ),
        ("backoffMaxSeconds", "DROPTRACK_BACKOFF_MAX_SECONDS", "longest retry delay"),
        (
            "priority10PerHour", "DROPTRACK_PRIORITY10_PER_HOUR",
            "priority-10 updates per activity per hour before extra ones go at priority 5 (an app may set its own)"
        ),
        (
            "schedulerIntervalSeconds", "DROPTRACK_SCHEDULER_INTERVAL_SECONDS",
            "scheduler tick: scheduled starts, schedule entries, automatic ends"
        ),
        (
            "defaultStaleSeconds", "DROPTRACK_DEFAULT_STALE_SECONDS",
            "stale-date this long after each version when none is given; 0: none"
        ),
        (
            "maxActiveSeconds", "DROPTRACK_MAX_ACTIVE_SECONDS",
            "automatic end after this long (iOS ends a Live Activity after 8 hours)"
        ),
        ("fcmTTLSeconds", "DROPTRACK_FCM_TTL_SECONDS", "android.ttl of Live Update messages"),
        (
            "fanoutRangeMinimum", "DROPTRACK_FANOUT_RANGE_MINIMUM",
            "update tokens from which an activity's events go out as 16 fan-out range jobs instead of an outbox row per token (0: always ranges); ranges cost 16 claims per event whatever the audience, so a one-user delivery is cheaper row by row"
        ),
        (
            "maxAudienceMembers", "DROPTRACK_MAX_AUDIENCE_MEMBERS",
            "most users one audience start may reach; past it 422 audience_too_large (reach more through a broadcast channel)"
        ),
        ("maxConnections", "DROPTRACK_MAX_CONNECTIONS", "open HTTP connections at most; past it 503 at once"),
        (
            "maxConnectionsPerClient", "DROPTRACK_MAX_CONNECTIONS_PER_CLIENT",
            "open HTTP connections from one client address; past it 429 at once (raise it behind a reverse proxy on the same host, which brings every client from one address)"
        ),
        (
            "maxEventStreamsPerKey", "DROPTRACK_MAX_EVENT_STREAMS_PER_KEY",
            "GET /v1/events streams one API key may hold open; past it 429"
        ),
        (
            "maxEventStreams", "DROPTRACK_MAX_EVENT_STREAMS",
            "GET /v1/events streams in all, below maxConnections; past it 503"
        ),
        (
            "providerTimeoutSeconds", "DROPTRACK_PROVIDER_TIMEOUT_SECONDS",
            "how long a push waits for APNs' or FCM's answer, more than 0 and at most 300; a start unanswered by then is in doubt and never resent"
        ),
        (
            "timelineRetentionDays", "DROPTRACK_TIMELINE_RETENTION_DAYS",
            "timeline rows older than this are deleted by the scheduler, in batches of 10,000 for up to 2 s a tick; 0 keeps them forever"
        ),
        (
            "tokenRetentionDays", "DROPTRACK_TOKEN_RETENTION_DAYS",
            "tokens invalidated (dead, superseded, activity over) longer ago than this are deleted by the scheduler, the same way; 0 keeps them forever"
        ),
        ("logLevel", "DROPTRACK_LOG_LEVEL", "trace, debug, info, notice, warning or error"),
        (
            "console", "DROPTRACK_CONSOLE",
            "true or false: serve the operator console at /console, where an operator signs in with one of an app's API keys"
        ),
        (
            "allowLoopbackWebhooks", "DROPTRACK_ALLOW_LOOPBACK_WEBHOOKS",
            "true lets a webhook URL be http://127.0.0.1:PORT/… and lets webhooks connect to loopback addresses, for tests and local development; otherwise only https:// to public addresses is taken"
        ),
        (
            "webhookMaxAttempts", "DROPTRACK_WEBHOOK_MAX_ATTEMPTS",
            "attempts per webhook delivery before it is given up, kept as failed and logged"
        ),
        (
            "webhookTimeoutSeconds", "DROPTRACK_WEBHOOK_TIMEOUT_SECONDS",
            "the whole of one webhook attempt, from resolving the name to the answer, at most 300: at this deadline the attempt ends and counts as failed, and no later answer counts"
        ),
        (
            "webhookAllowedNetworks", "DROPTRACK_WEBHOOK_ALLOWED_NETWORKS",
            "networks in CIDR form ([\"10.20.0.0/16\", \"fd00:1::/64\"]; comma-separated in the variable) that webhooks may connect to although they are not public: a receiver on your own network; empty: public addresses only"
        ),
        (
            "apps", "-",
            "the apps, each {id, bundleId, apns: {keyFile, keyId, teamId, environment}, fcm: {serviceAccountFile}, apiKeyHashes, schemas, priority10PerHour, deviceKeys: [{kid, publicKeyFile or privateKeyFile}], webhooks: [{id, url, secretFile, events}]}; droptrack apps add, apps device-key and apps webhook write them. A relative path in the file (keyFile, serviceAccountFile, publicKeyFile, privateKeyFile, secretFile, and the top-level caFile and sqlite: store) is taken from the config file's directory, not from where serve runs (a DROPTRACK_* variable or a flag stays relative to the shell)"
        ),
    ]

    /// Reads a config file (when given) and applies `DROPTRACK_*` variables over it.
    public static func load(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(ConfigurationError)
        -> ServerConfiguration
    {
        var configuration = ServerConfiguration()
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError(key: nil, "cannot read config file \(file)")
            }
            try refuseUnknownKeys(data, file: file)
            do {
                configuration = try JSONDecoder().decode(ServerConfiguration.self, from: data)
                configuration.resolvePaths(writtenIn: file, data: data)
            } catch let error as DecodingError {
                throw ConfigurationError(key: nil, "config file \(file): \(ConfigurationError.describe(error))")
            } catch {
                throw ConfigurationError(key: nil, "config file \(file): \(error)")
            }
        }
        func number(_ variable: String) throws(ConfigurationError) -> Double? {
            guard let text = environment[variable] else { return nil }
            guard let value = Double(text), value.isFinite, value >= 0 else {
                throw ConfigurationError(key: variable, "\(variable) must be a number, 0 or more, not '\(text)'")
            }
            return value
        }
        func integer(_ variable: String) throws(ConfigurationError) -> Int? {
            guard let value = try number(variable) else { return nil }
            let bounds = 0...Int(JSONInteger.exactRange.upperBound)
            guard value == value.rounded(), let whole = Int(checking: value, within: bounds) else {
                throw ConfigurationError(
                    key: variable,
                    "\(variable) must be a whole number from \(bounds.lowerBound) to \(bounds.upperBound), not '\(environment[variable] ?? "")'"
                )
            }
            return whole
        }
        if let value = environment["DROPTRACK_LISTEN"] { configuration.listen = value }
        if let value = environment["DROPTRACK_STORE"] { configuration.store = value }
        if let value = environment["DROPTRACK_APNS_HOST"] { configuration.apnsHost = value }
        if let value = environment["DROPTRACK_FCM_BASE_URL"] { configuration.fcmBaseURL = value }
        if let value = environment["DROPTRACK_CA_FILE"] { configuration.caFile = value }
        if let value = environment["DROPTRACK_LOG_LEVEL"] { configuration.logLevel = value }
        if let text = environment["DROPTRACK_CONSOLE"] {
            guard let value = ["true": true, "1": true, "false": false, "0": false][text.lowercased()] else {
                throw ConfigurationError(
                    key: "DROPTRACK_CONSOLE", "DROPTRACK_CONSOLE must be true or false, not '\(text)'")
            }
            configuration.console = value
        }
        if let value = try integer("DROPTRACK_MAX_BODY_BYTES") { configuration.maxBodyBytes = value }
        if let value = try number("DROPTRACK_REQUESTS_PER_SECOND_PER_KEY") {
            configuration.requestsPerSecondPerKey = value
        }
        if let value = try number("DROPTRACK_REQUESTS_PER_SECOND_PER_USER") {
            configuration.requestsPerSecondPerUser = value
        }
        if let value = try integer("DROPTRACK_MAX_IN_FLIGHT") { configuration.maxInFlight = value }
        if let value = try integer("DROPTRACK_CLAIM_BATCH") { configuration.claimBatch = value }
        if let value = try number("DROPTRACK_LEASE_SECONDS") { configuration.leaseSeconds = value }
        if let value = try integer("DROPTRACK_MAX_ATTEMPTS") { configuration.maxAttempts = value }
        if let value = try number("DROPTRACK_MAX_AGE_SECONDS") { configuration.maxAgeSeconds = value }
        if let value = try number("DROPTRACK_BACKOFF_BASE_SECONDS") { configuration.backoffBaseSeconds = value }
        if let value = try number("DROPTRACK_BACKOFF_MAX_SECONDS") { configuration.backoffMaxSeconds = value }
        if let value = try integer("DROPTRACK_PRIORITY10_PER_HOUR") { configuration.priority10PerHour = value }
        if let value = try number("DROPTRACK_SCHEDULER_INTERVAL_SECONDS") {
            configuration.schedulerIntervalSeconds = value
        }
        if let value = try number("DROPTRACK_DEFAULT_STALE_SECONDS") { configuration.defaultStaleSeconds = value }
        if let value = try number("DROPTRACK_MAX_ACTIVE_SECONDS") { configuration.maxActiveSeconds = value }
        if let value = try number("DROPTRACK_FCM_TTL_SECONDS") { configuration.fcmTTLSeconds = value }
        if let value = try integer("DROPTRACK_MAX_AUDIENCE_MEMBERS") { configuration.maxAudienceMembers = value }
        if let value = try integer("DROPTRACK_FANOUT_RANGE_MINIMUM") { configuration.fanoutRangeMinimum = value }
        if let value = try number("DROPTRACK_PROVIDER_TIMEOUT_SECONDS") { configuration.providerTimeoutSeconds = value }
        if let value = try integer("DROPTRACK_MAX_CONNECTIONS") { configuration.maxConnections = value }
        if let value = try integer("DROPTRACK_MAX_CONNECTIONS_PER_CLIENT") {
            configuration.maxConnectionsPerClient = value
        }
        if let value = try integer("DROPTRACK_MAX_EVENT_STREAMS_PER_KEY") {
            configuration.maxEventStreamsPerKey = value
        }
        if let value = try integer("DROPTRACK_MAX_EVENT_STREAMS") { configuration.maxEventStreams = value }
        if let value = try number("DROPTRACK_TIMELINE_RETENTION_DAYS") { configuration.timelineRetentionDays = value }
        if let value = try number("DROPTRACK_TOKEN_RETENTION_DAYS") { configuration.tokenRetentionDays = value }
        if let value = environment["DROPTRACK_ALLOW_LOOPBACK_WEBHOOKS"] {
            guard let flag = ["true": true, "1": true, "false": false, "0": false][value] else {
                throw ConfigurationError(
                    key: "DROPTRACK_ALLOW_LOOPBACK_WEBHOOKS",
                    "DROPTRACK_ALLOW_LOOPBACK_WEBHOOKS must be true or false, not '\(value)'")
            }
            configuration.allowLoopbackWebhooks = flag
        }
        if let value = try integer("DROPTRACK_WEBHOOK_MAX_ATTEMPTS") { configuration.webhookMaxAttempts = value }
        if let value = try number("DROPTRACK_WEBHOOK_TIMEOUT_SECONDS") { configuration.webhookTimeoutSeconds = value }
        if let value = environment["DROPTRACK_WEBHOOK_ALLOWED_NETWORKS"] {
            configuration.webhookAllowedNetworks = value.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
        try configuration.validate()
        return configuration
    }

    /// A misspelt key in the file would otherwise be ignored and its default used without a word.
    static func refuseUnknownKeys(_ data: Data, file: String) throws(ConfigurationError) {
        let document: JSONValue
        do {
            // Strict where JSONDecoder is lenient: a key written twice would silently take the last value.
            document = try JSONValue.parse(bytes: Array(data))
        } catch {
            throw ConfigurationError(key: error.path, "config file \(file): \(error)")
        }
        guard let top = document.objectValue else {
            throw ConfigurationError(key: nil, "config file \(file) is not a JSON object")
        }
        func check(_ object: [String: JSONValue], known: [String], at path: String) throws(ConfigurationError) {
            for key in object.keys.sorted() where !known.contains(key) {
                let hint = KeySuggestion.didYouMean(key, among: known)
                throw ConfigurationError(
                    key: path + key, "config file \(file): unknown key '\(path + key)'\(hint)")
            }
        }
        try check(top, known: CodingKeys.allCases.map(\.rawValue), at: "")
        for (index, app) in (top["apps"]?.arrayValue ?? []).enumerated() {
            guard let object = app.objectValue else { continue }
            let path = "apps[\(index)]."
            try check(object, known: AppConfiguration.CodingKeys.allCases.map(\.rawValue), at: path)
            // One level down too: a misspelt `keyfile` would otherwise surface as "missing key 'keyFile'".
            if let apns = object["apns"]?.objectValue {
                try check(apns, known: AppConfiguration.APNs.CodingKeys.allCases.map(\.rawValue), at: path + "apns.")
            }
            if let fcm = object["fcm"]?.objectValue {
                try check(fcm, known: AppConfiguration.FCM.CodingKeys.allCases.map(\.rawValue), at: path + "fcm.")
            }
            for (keyIndex, key) in (object["deviceKeys"]?.arrayValue ?? []).enumerated() {
                guard let entry = key.objectValue else { continue }
                try check(
                    entry, known: AppConfiguration.DeviceKey.CodingKeys.allCases.map(\.rawValue),
                    at: path + "deviceKeys[\(keyIndex)].")
            }
        }
    }
}
