import DropTrackCore
import DropTrackModel
import Foundation

/// What a timeline entry is about. Stored in the timeline's `destination` column in the form rows
/// always had: the token's fingerprint, `channel:<id>`, `range:<hex digit>`, or `-` for the activity.
public enum TimelineDestination: Sendable, Hashable, Codable, CustomStringConvertible {
    /// One device token.
    case token(Fingerprint)
    /// An activity's broadcast channel.
    case channel(id: String)
    /// A fan-out range (`FanoutJob.range`, 0…15): a pass's summary.
    case range(Int)
    /// The activity itself: a decision or a device's report that concerns no one token.
    case activity

    /// Where an outbox row sends.
    public init(_ destination: OutboxDestination) {
        switch destination {
        case .token(let fingerprint): self = .token(fingerprint)
        case .channel(let id): self = .channel(id: id)
        }
    }

    private static let rangePrefix = "range:"
    private static let hexDigits = Array("0123456789abcdef")

    /// The stored (and shown) form.
    public var stored: String {
        switch self {
        case .token(let fingerprint): fingerprint.value
        case .channel(let id): OutboxDestination.channelPrefix + id
        case .range(let range): Self.rangePrefix + String(Self.hexDigits[max(0, min(range, 15))])
        case .activity: "-"
        }
    }

    /// Reads the stored form; nil when it is none of the four (the row is corrupt).
    public init?(stored: String) {
        if stored == "-" {
            self = .activity
        } else if stored.hasPrefix(Self.rangePrefix) {
            let digit = stored.dropFirst(Self.rangePrefix.count)
            guard digit.count == 1, let range = digit.first.flatMap({ Self.hexDigits.firstIndex(of: $0) }) else {
                return nil
            }
            self = .range(range)
        } else {
            guard let destination = OutboxDestination(stored: stored) else { return nil }
            self.init(destination)
        }
    }

    /// The token's fingerprint, or nil for a channel, a range or the activity.
    public var tokenFingerprint: Fingerprint? {
        if case .token(let fingerprint) = self { fingerprint } else { nil }
    }

    public var description: String { stored }

    /// One string, the stored form, as before the type existed.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let destination = TimelineDestination(stored: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a timeline destination"))
        }
        self = destination
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stored)
    }
}

/// What the server did about a send's answer, or about a decision it made instead of sending: the
/// timeline's `remedy`, stored as the raw value. The set is closed: every row is written by this
/// server, and each name here is one it has always written, so text outside it is a corrupt row.
/// The provider remedies (`PushRemedy.name` in the wire layer, which the store does not import) keep
/// their names.
public enum TimelineRemedy: String, Sendable, Codable, CaseIterable {
    /// Nothing to do: delivered, or a decision that needs no follow-up.
    case none
    /// The provider declared the token dead; it was invalidated.
    case deleteToken = "delete_token"
    /// The provider refused the credentials; new ones are minted and the send retried.
    case refreshCredentials = "refresh_credentials"
    /// Sent again later (backoff, or the provider's Retry-After).
    case retry
    /// Sent again on a new connection.
    case reconnect
    /// The provider refused the request itself.
    case rejectRequest = "reject_request"
    /// Given up on: kept with its error, never sent again.
    case deadLetter = "dead_letter"
    /// A start whose outcome is unknown: never resent, so no device gets two activities.
    case inDoubt = "in_doubt"
    /// The broadcast channel was gone; a new one was created.
    case recreateChannel = "recreate_channel"
    /// The provider is unreachable; the send waits in the outbox without spending an attempt.
    case waitForProvider = "wait_for_provider"
    /// A device reported the activity gone; its update tokens were invalidated.
    case tokenInvalidated = "token_invalidated"
}

extension TimelineRemedy {
    /// Whether the send is tried again after this remedy, so its destination is still pending.
    public var leavesSendPending: Bool {
        switch self {
        case .retry, .reconnect, .refreshCredentials, .waitForProvider: true
        default: false
        }
    }
}

/// Who a timeline entry speaks for. Stored and shown as the raw value.
public enum TimelineProvider: String, Sendable, Codable, CaseIterable {
    /// A send through Apple's push service.
    case apns
    /// A send through Firebase Cloud Messaging.
    case fcm
    /// Not a send: something the server decided (a skip, a downgrade, a device's report, a pass summary's note).
    case server
}

/// One send attempt (or a decision about one), as the timeline shows it.
public struct TimelineEntry: Sendable, Equatable, Codable {
    public var app: String
    public var activityId: String
    public var at: Date
    /// The token, the broadcast channel, the fan-out range, or the activity itself (a note about it).
    public var destination: TimelineDestination
    /// APNs or FCM for a send, or the server itself for a decision about one.
    public var provider: TimelineProvider
    /// start, update or end.
    public var event: String
    /// The version sent.
    public var version: Int64
    /// The HTTP status, 0 without an answer.
    public var status: Int
    /// `ok`, the provider's reason, or what the server decided (`dead_letter`, `superseded`, …).
    public var reason: String
    /// The remedy taken.
    public var remedy: TimelineRemedy
    public var latencyMs: Double
    public var priority: Int
    public var attempt: Int
    /// Extra words (a downgrade, a dead letter's cause).
    public var note: String?

    public init(
        app: String, activityId: String, at: Date, destination: TimelineDestination, provider: TimelineProvider,
        event: String,
        version: Int64,
        status: Int, reason: String, remedy: TimelineRemedy, latencyMs: Double, priority: Int, attempt: Int,
        note: String? = nil
    ) {
        self.app = app
        self.activityId = activityId
        self.at = at
        self.destination = destination
        self.provider = provider
        self.event = event
        self.version = version
        self.status = status
        self.reason = reason
        self.remedy = remedy
        self.latencyMs = latencyMs
        self.priority = priority
        self.attempt = attempt
        self.note = note
    }
}

extension TimelineEntry {
    /// What this entry settles of a start to one device: `started` when the provider took it, its
    /// reason when the start will not reach the device, nil when it says nothing final (a retry, an
    /// update, a channel, a decision about the activity). The store counts these as it appends them,
    /// so a shared activity's progress is read from counters, not from every member's entries.
    public var startOutcome: String? {
        guard event == "start", destination.tokenFingerprint != nil else { return nil }
        if (200..<300).contains(status) { return "started" }
        return remedy.leavesSendPending ? nil : reason
    }

    /// The outcomes of `entries`, counted by app, activity and outcome.
    static func startOutcomeCounts(_ entries: [TimelineEntry]) -> [StartOutcomeKey: Int] {
        var counts: [StartOutcomeKey: Int] = [:]
        for entry in entries {
            guard let outcome = entry.startOutcome else { continue }
            counts[StartOutcomeKey(app: entry.app, activityId: entry.activityId, outcome: outcome), default: 0] += 1
        }
        return counts
    }
}

/// One counter of start outcomes.
struct StartOutcomeKey: Hashable {
    var app: String
    var activityId: String
    var outcome: String
}
