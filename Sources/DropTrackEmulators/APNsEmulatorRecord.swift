import DropTrackContract
import DropTrackWire
import Foundation

/// One request the APNs emulator saw, with its verdict and lint findings. Device tokens and
/// provider tokens appear only as fingerprints.
public struct APNsEmulatorRecord: Sendable, Codable {
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
    /// The device token's fingerprint, for device pushes.
    public var tokenFingerprint: String?
    /// The channel id, for broadcasts and channel management.
    public var channelID: String?
    /// Request headers; `authorization` is replaced by the JWT's fingerprint.
    public var headers: [String: String]
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
    /// The decoded body, when it was JSON.
    public var payload: JSONValue?
    /// Body size in bytes.
    public var payloadBytes: Int
    /// Silent-failure traps the push hits although APNs accepted it.
    public var findings: [LintFinding]
    /// The injected fault that decided the answer, if any.
    public var fault: String?

    /// True when APNs would have accepted it.
    public var accepted: Bool { status == 200 }

    /// The content-state, when present.
    public var contentState: JSONValue? { payload?["aps"]?["content-state"] }
}

/// What the emulator hands to simulated devices for each accepted push.
public struct APNsDelivery: Sendable {
    /// The device token (in-process only; never serialised).
    public var token: String?
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

    public init(environment: APNsEnvironment, attributesType: String? = nil, dead: (reason: APNsReason, since: Date)? = nil) {
        self.environment = environment
        self.attributesType = attributesType
        self.dead = dead
    }
}
