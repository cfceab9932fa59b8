import DropTrackContract
import DropTrackCore
import DropTrackHTTP2
import DropTrackModel
import DropTrackWire
import Foundation

/// One request the APNs emulator saw, with its verdict and lint findings. Device tokens and
/// provider tokens appear only as fingerprints.
///
/// The body is kept as bytes; `payload` and `findings` are worked out when read, from what the
/// emulator knew when the push arrived, so the hot path stays cheap.
public struct APNsEmulatorRecord: Sendable, Encodable {
    /// Order of arrival, from 1.
    public var sequence: Int
    /// When it arrived (emulator clock).
    public var receivedAt: Date
    /// The connection it came on.
    public var connection: Int
    /// `device`, `broadcast`, `channel` or `other`.
    public var kind: String
    /// `:method`.
    public var method: String
    /// The channel id, for broadcasts and channel management.
    public var channelID: String?
    /// Request headers; `authorization` is replaced by the JWT's fingerprint.
    public var headers: RecordedHeaders
    /// The status answered (0 when the connection was dropped or GOAWAY refused the stream).
    public var status: Int
    /// The reason answered, for errors.
    public var reason: String?
    /// The `apns-id` answered.
    public var apnsID: String?
    /// `apns-priority` as sent (10 when absent).
    public var priority: Int?
    /// `aps.event`.
    public var event: String?
    /// `aps.timestamp`.
    public var timestamp: Int64?
    /// The injected fault that decided the answer, if any.
    public var fault: String?
    /// The device token; in-process only, never encoded, and printed or dumped as its fingerprint.
    let token: DeviceToken?
    /// The body as sent.
    public let body: [UInt8]
    let lint: LintInput?

    /// Body size in bytes.
    public var payloadBytes: Int { body.count }
    /// The device token's fingerprint, for device pushes.
    public var tokenFingerprint: String? { token?.fingerprint.value }
    /// The decoded body, when it is JSON.
    public var payload: JSONValue? { try? JSONValue.parse(bytes: body) }
    /// The content-state, when present.
    public var contentState: JSONValue? { payload?["aps"]?["content-state"] }
    /// True when APNs would have accepted it.
    public var accepted: Bool { status == 200 }
    /// Silent-failure traps the push hits although APNs accepted it.
    public var findings: [LintFinding] { lint?.findings(for: body) ?? [] }

    enum CodingKeys: String, CodingKey {
        case sequence, receivedAt, receivedAtUnixMillis, connection, kind, method, tokenFingerprint, channelID, headers,
            status, reason,
            apnsID
        case priority, event, timestamp, payload, payloadBytes, findings, fault
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(receivedAt, forKey: .receivedAt)
        // ISO 8601 keeps whole seconds only; latency benchmarks need milliseconds.
        try container.encode(Int64((receivedAt.timeIntervalSince1970 * 1000).rounded()), forKey: .receivedAtUnixMillis)
        try container.encode(connection, forKey: .connection)
        try container.encode(kind, forKey: .kind)
        try container.encode(method, forKey: .method)
        try container.encodeIfPresent(tokenFingerprint, forKey: .tokenFingerprint)
        try container.encodeIfPresent(channelID, forKey: .channelID)
        try container.encode(headers, forKey: .headers)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(apnsID, forKey: .apnsID)
        try container.encodeIfPresent(priority, forKey: .priority)
        try container.encodeIfPresent(event, forKey: .event)
        try container.encodeIfPresent(timestamp, forKey: .timestamp)
        try container.encodeIfPresent(payload, forKey: .payload)
        try container.encode(payloadBytes, forKey: .payloadBytes)
        try container.encode(findings, forKey: .findings)
        try container.encodeIfPresent(fault, forKey: .fault)
    }
}

/// What the emulator knew when an accepted push arrived, for linting it later (the context says
/// whether it was a broadcast, which cannot start an activity).
struct LintInput: Sendable {
    var context: LiveActivityLint.Context

    func findings(for body: [UInt8]) -> [LintFinding] {
        guard let payload = try? JSONValue.parse(bytes: body) else {
            return [
                LintFinding(
                    trap: "DT-023", severity: .error, field: "payload",
                    message: "the body is not JSON; the device drops it",
                    fix: "send a JSON object")
            ]
        }
        return LiveActivityLint.check(payload, context: context)
    }
}

/// What the emulator hands to simulated devices for each accepted push.
public struct APNsDelivery: Sendable {
    /// The device token (in-process only; never serialised), lowercased as the path carried it; nil for
    /// broadcasts. Printing it shows only its fingerprint; `wireValue` is the token itself.
    public var token: DeviceToken?
    /// The channel, for broadcasts.
    public var channelID: String?
    /// The bundle id the push was for.
    public var bundleID: String
    /// The exact body.
    public var payload: [UInt8]
    /// The priority (5 or 10; 1 on broadcasts).
    public var priority: Int
    /// The `apns-id` answered.
    public var apnsID: String
    /// When APNs accepted it.
    public var acceptedAt: Date
}

/// What the emulator knows about a device token.
public struct EmulatedToken: Sendable {
    /// The environment the token was issued for.
    public var environment: APNsEnvironment
    /// The `ActivityAttributes` type the token belongs to (push-to-start tokens are per type;
    /// update tokens per activity of a type), for decoding content-state.
    public var attributesType: String?
    /// Set when the token is dead: the reason answered and since when.
    public var dead: (reason: APNsReason, since: Date)?

    public init(
        environment: APNsEnvironment, attributesType: String? = nil, dead: (reason: APNsReason, since: Date)? = nil
    ) {
        self.environment = environment
        self.attributesType = attributesType
        self.dead = dead
    }
}

/// The APNs headers of a request as recorded: the values APNs reads (shared with the request, no
/// copy on the hot path), written as a JSON object with `authorization` replaced by the provider
/// token's fingerprint.
public struct RecordedHeaders: Sendable, Encodable {
    let set: APNsHeaderSet

    init(_ set: APNsHeaderSet) { self.set = set }

    /// Name and value pairs, `authorization` redacted.
    public var fields: [(name: String, value: String)] {
        let values: [String?] = [
            set.authorization.map(RecordedHeaders.redact), set.topic, set.pushType, set.priority, set.expiration,
            set.apnsID, set.collapseID, set.channelID, set.requestID,
        ]
        return zip(APNsHeaderSet.names, values).compactMap { name, value in value.map { (name, $0) } }
    }

    /// The value of one of the APNs headers; `authorization` comes back redacted.
    public subscript(name: String) -> String? { fields.first { $0.name == name }?.value }

    static func redact(_ authorization: String) -> String {
        "bearer <provider token \(Fingerprint(of: String(authorization.split(separator: " ").last ?? "")).value)>"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Dictionary(fields, uniquingKeysWith: { first, _ in first }))
    }
}

/// The headers APNs reads, picked out in one pass over the request (the emulator's hot path), with
/// the first repeated `apns-*` or `authorization` header noted for DuplicateHeaders.
struct APNsHeaderSet {
    private(set) var authorization: String?
    private(set) var topic: String?
    private(set) var pushType: String?
    private(set) var priority: String?
    private(set) var expiration: String?
    private(set) var apnsID: String?
    private(set) var collapseID: String?
    private(set) var channelID: String?
    private(set) var requestID: String?
    private(set) var duplicate: String?

    init(_ headers: [HTTPHeader]) {
        for header in headers {
            let name = header.name
            // Length and one distinguishing byte pick the candidate; one comparison confirms it.
            // (The UTF-8 view, not withUTF8: names are small strings, which withUTF8 would copy.)
            let slot: Int = {
                let bytes = name.utf8
                guard bytes.count >= 7, bytes.first == UInt8(ascii: "a") else { return -1 }
                switch (bytes.count, bytes[bytes.index(bytes.startIndex, offsetBy: 5)]) {
                case (13, UInt8(ascii: "r")): return 0  // authorization
                case (10, UInt8(ascii: "t")): return 1  // apns-topic
                case (14, UInt8(ascii: "p")): return 2  // apns-push-type
                case (13, UInt8(ascii: "p")): return 3  // apns-priority
                case (15, UInt8(ascii: "e")): return 4  // apns-expiration
                case (7, UInt8(ascii: "i")): return 5  // apns-id
                case (16, UInt8(ascii: "c")): return 6  // apns-collapse-id
                case (15, UInt8(ascii: "c")): return 7  // apns-channel-id
                case (15, UInt8(ascii: "r")): return 8  // apns-request-id
                default: return -1
                }
            }()
            if slot >= 0 && name == APNsHeaderSet.names[slot] {
                let previous: String?
                switch slot {
                case 0: (previous, authorization) = (authorization, authorization ?? header.value)
                case 1: (previous, topic) = (topic, topic ?? header.value)
                case 2: (previous, pushType) = (pushType, pushType ?? header.value)
                case 3: (previous, priority) = (priority, priority ?? header.value)
                case 4: (previous, expiration) = (expiration, expiration ?? header.value)
                case 5: (previous, apnsID) = (apnsID, apnsID ?? header.value)
                case 6: (previous, collapseID) = (collapseID, collapseID ?? header.value)
                case 7: (previous, channelID) = (channelID, channelID ?? header.value)
                default: (previous, requestID) = (requestID, requestID ?? header.value)
                }
                if previous != nil && duplicate == nil { duplicate = name }
            } else if duplicate == nil, name.hasPrefix("apns-"), headers.filter({ $0.name == header.name }).count > 1 {
                duplicate = name
            }
        }
    }

    static let names = [
        "authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-id",
        "apns-collapse-id", "apns-channel-id", "apns-request-id",
    ]
}

/// One emulated device's view, for `/_emulator/devices`: what it accepted and what it shows now.
public struct EmulatedDevice: Sendable, Encodable {
    /// The device token (the emulator is a test tool; it names tokens as they are).
    public var token: String
    /// Accepted pushes by event (`start`, `update`, `end`).
    public var accepted: [String: Int]
    /// The newest accepted push (by timestamp): its event, timestamp and content-state.
    public var latestEvent: String?
    public var latestTimestamp: Int64?
    public var latestContentState: JSONValue?
}
