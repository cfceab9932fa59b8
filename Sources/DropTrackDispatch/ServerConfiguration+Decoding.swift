import DropTrackContract
import DropTrackCore
import DropTrackSHA256
import DropTrackStore
import Foundation

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
        case allowLoopbackWebhooks, webhookMaxAttempts, webhookTimeoutSeconds, webhookAllowedNetworks
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
        webhookAllowedNetworks =
            try c.decodeIfPresent([String].self, forKey: .webhookAllowedNetworks) ?? defaults.webhookAllowedNetworks
    }
}
