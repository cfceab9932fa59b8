import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackStore
import DropTrackWire
import Foundation

/// Where the server's configuration comes from: a JSON file, then `DROPTRACK_*` variables over it. The
/// composition root reads it; the domain only receives the result (and checks it with `validate`).
extension ServerConfiguration {
    /// Every key, its environment variable and its meaning (the README's table is made from this).
    public static let keys: [(key: String, variable: String, help: String)] = [
        ("listen", "DROPTRACK_LISTEN", "HTTP API address (default 127.0.0.1:8787)"),
        (
            "store", "DROPTRACK_STORE",
            "sqlite:PATH (default sqlite:droptrack.sqlite), memory, or postgres://USER:PASSWORD@HOST:PORT/DB for several servers sharing one database"
        ),
        (
            "apnsHost", "DROPTRACK_APNS_HOST",
            "HOST:PORT for every app's APNs traffic whatever the token's environment (the emulator); default: Apple's host for each token's environment"
        ),
        ("fcmBaseURL", "DROPTRACK_FCM_BASE_URL", "base URL for every app's FCM traffic (the emulator)"),
        ("caFile", "DROPTRACK_CA_FILE", "CA file to trust for APNs and FCM"),
        ("maxBodyBytes", "DROPTRACK_MAX_BODY_BYTES", "largest request body (default 262144)"),
        (
            "requestsPerSecondPerKey", "DROPTRACK_REQUESTS_PER_SECOND_PER_KEY",
            "API rate per key, burst twice that (default 200)"
        ),
        (
            "requestsPerSecondPerUser", "DROPTRACK_REQUESTS_PER_SECOND_PER_USER",
            "device-credential requests per second per user, bursts of 4× that (default 5, bursts of 20; 0 turns it off)"
        ),
        ("maxInFlight", "DROPTRACK_MAX_IN_FLIGHT", "sends in flight at most (default 2000)"),
        ("claimBatch", "DROPTRACK_CLAIM_BATCH", "outbox rows claimed per app per round (default 500)"),
        ("leaseSeconds", "DROPTRACK_LEASE_SECONDS", "claim lease; a dead worker's rows return after it (default 60)"),
        ("maxAttempts", "DROPTRACK_MAX_ATTEMPTS", "attempts before a dead letter (default 8)"),
        ("maxAgeSeconds", "DROPTRACK_MAX_AGE_SECONDS", "age before a failing send is a dead letter (default 3600)"),
        ("backoffBaseSeconds", "DROPTRACK_BACKOFF_BASE_SECONDS", "first retry delay (default 1)"),
        ("backoffMaxSeconds", "DROPTRACK_BACKOFF_MAX_SECONDS", "longest retry delay (default 300)"),
        (
            "priority10PerHour", "DROPTRACK_PRIORITY10_PER_HOUR",
            "priority-10 updates per activity per hour (default 12)"
        ),
        ("schedulerIntervalSeconds", "DROPTRACK_SCHEDULER_INTERVAL_SECONDS", "scheduler tick (default 60)"),
        (
            "defaultStaleSeconds", "DROPTRACK_DEFAULT_STALE_SECONDS",
            "stale-date after each version when none is given (default 0: none)"
        ),
        (
            "maxActiveSeconds", "DROPTRACK_MAX_ACTIVE_SECONDS",
            "automatic end after this long (default 28800, iOS's 8 hours)"
        ),
        ("fcmTTLSeconds", "DROPTRACK_FCM_TTL_SECONDS", "android.ttl of Live Update messages (default 600)"),
        (
            "fanoutRangeMinimum", "DROPTRACK_FANOUT_RANGE_MINIMUM",
            "update tokens from which an event goes out as 16 fan-out range jobs, not a row per token (default 1000; 0: always)"
        ),
        (
            "maxAudienceMembers", "DROPTRACK_MAX_AUDIENCE_MEMBERS",
            "most users one audience start may reach; past it 422 (default 100000; use a broadcast channel)"
        ),
        (
            "maxConnections", "DROPTRACK_MAX_CONNECTIONS",
            "open HTTP connections at most; past it 503 at once (default 1000)"
        ),
        (
            "maxConnectionsPerClient", "DROPTRACK_MAX_CONNECTIONS_PER_CLIENT",
            "open HTTP connections from one client address; past it 429 at once (default 64; raise it behind a proxy on the same host)"
        ),
        (
            "maxEventStreamsPerKey", "DROPTRACK_MAX_EVENT_STREAMS_PER_KEY",
            "GET /v1/events streams one API key may hold open; past it 429 (default 10)"
        ),
        (
            "maxEventStreams", "DROPTRACK_MAX_EVENT_STREAMS",
            "GET /v1/events streams in all, below maxConnections; past it 503 (default 200)"
        ),
        (
            "providerTimeoutSeconds", "DROPTRACK_PROVIDER_TIMEOUT_SECONDS",
            "how long a push waits for APNs' or FCM's answer; a start unanswered by then is in doubt and never resent (default 10)"
        ),
        (
            "timelineRetentionDays", "DROPTRACK_TIMELINE_RETENTION_DAYS",
            "timeline rows older than this are deleted (default 30; 0 keeps them forever)"
        ),
        (
            "tokenRetentionDays", "DROPTRACK_TOKEN_RETENTION_DAYS",
            "tokens invalidated (dead, superseded, activity over) longer ago than this are deleted (default 30; 0 keeps them forever)"
        ),
        ("logLevel", "DROPTRACK_LOG_LEVEL", "trace, debug, info, notice, warning or error (default info)"),
        (
            "console", "DROPTRACK_CONSOLE",
            "true or false: serve the operator console at /console, signed in with an app's API key (default true)"
        ),
        (
            "allowLoopbackWebhooks", "DROPTRACK_ALLOW_LOOPBACK_WEBHOOKS",
            "true lets webhook URLs be http://127.0.0.1 (tests, local development); otherwise https:// only (default false)"
        ),
        (
            "webhookMaxAttempts", "DROPTRACK_WEBHOOK_MAX_ATTEMPTS",
            "attempts per webhook delivery before it is given up and kept as failed (default 15)"
        ),
        (
            "webhookTimeoutSeconds", "DROPTRACK_WEBHOOK_TIMEOUT_SECONDS",
            "how long a webhook delivery waits for the receiver's answer (default 10)"
        ),
        (
            "webhookAllowedNetworks", "DROPTRACK_WEBHOOK_ALLOWED_NETWORKS",
            "networks (CIDR, comma-separated in the variable) webhooks may reach although private or link-local (default none: public addresses only)"
        ),
        (
            "apps", "-",
            "the apps: id, bundleId, apns {keyFile, keyId, teamId, environment}, fcm {serviceAccountFile}, apiKeyHashes, schemas, deviceKeys [{kid, publicKeyFile or privateKeyFile}] (see docs/device-api.md), webhooks [{id, url, secretFile, events}]"
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
