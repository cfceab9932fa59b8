import DropTrackCore
import DropTrackModel
import Foundation

/// "Every valid update token of activity X whose fingerprint falls in range R needs version V": a
/// fan-out range job. Accepting an event writes `FanoutJob.rangeCount` of these, whatever the audience,
/// instead of one outbox row per token; workers lease a range, send to its tokens in fingerprint order
/// a batch at a time, and move `cursor` forward in the transaction that records each batch's outcome.
public struct FanoutJob: Sendable, Equatable {
    /// Ranges per activity: one per first hex digit of a fingerprint (`Fingerprint` is lowercase hex).
    public static let rangeCount = 16

    public var app: String
    public var activityId: String
    /// 0…15: the fingerprints from hex digit `range` (inclusive) to the next one (exclusive). Range 0
    /// has no lower bound and range 15 no upper one, so the ranges cover every string between them.
    public var range: Int
    /// The newest version that must reach the range (raised by each event: bursts coalesce).
    public var requestedVersion: Int64
    /// The version requested when the current pass began: the tokens up to `cursor` got it or a newer
    /// one. A pass that ends with `requestedVersion` above it starts again from the beginning.
    public var passVersion: Int64
    /// The fingerprint of the last token whose outcome the pass committed; nil at a pass's start
    /// (stored as the empty string).
    public var cursor: Fingerprint?
    /// What the pass sent so far, in the dispatcher's own form (the store keeps it as text).
    public var summary: String?
    /// When the range was first asked for (the outbox's age, for metrics and readiness).
    public var firstQueuedAt: Date
    /// Not before this time; while leased, the lease's end.
    public var availableAt: Date
    public var claimedBy: String?
    public var claimedUntil: Date?
    /// True when this claim took the range over from a lease that ran out with no outcome written:
    /// the sends after `cursor` may have gone out, and go out again (an update twice is harmless).
    public var resumed: Bool

    public init(
        app: String, activityId: String, range: Int, requestedVersion: Int64, passVersion: Int64,
        cursor: Fingerprint? = nil,
        summary: String? = nil, firstQueuedAt: Date, availableAt: Date, claimedBy: String? = nil,
        claimedUntil: Date? = nil, resumed: Bool = false
    ) {
        self.app = app
        self.activityId = activityId
        self.range = range
        self.requestedVersion = requestedVersion
        self.passVersion = passVersion
        self.cursor = cursor
        self.summary = summary
        self.firstQueuedAt = firstQueuedAt
        self.availableAt = availableAt
        self.claimedBy = claimedBy
        self.claimedUntil = claimedUntil
        self.resumed = resumed
    }

    /// The range's fingerprints: from `lower` (inclusive) up to `upper` (exclusive); nil is unbounded.
    public static func bounds(of range: Int) -> (lower: String?, upper: String?) {
        let digits = Array("0123456789abcdef")
        return (
            range <= 0 ? nil : String(digits[min(range, 15)]),
            range >= rangeCount - 1 ? nil : String(digits[max(range + 1, 1)])
        )
    }

    /// Whether `fingerprint` is in `range`.
    public static func contains(_ range: Int, _ fingerprint: Fingerprint) -> Bool {
        let (lower, upper) = bounds(of: range)
        return (lower.map { fingerprint.value >= $0 } ?? true) && (upper.map { fingerprint.value < $0 } ?? true)
    }

    /// The range in the timeline's `destination` (stored as `range:<hex digit>`).
    public var destination: TimelineDestination { .range(range) }
}

/// How `finishFanoutPass` left a range.
public enum FanoutPassEnd: Sendable, Equatable {
    /// Nothing newer was asked for: the row is gone.
    case removed
    /// A newer version was asked for during the pass: a new pass starts from the beginning for it.
    case restarted(version: Int64)
    /// The caller no longer held the lease (it ran out and another worker took the range over).
    case lost
}

/// What a range send needs of an update token, and no more: its fingerprint (the range cursor and the
/// destination the outcome names), the token itself and its environment. A fan-out reads one per
/// push; reading whole `TokenRecord`s made each batch look up every token's table row, where this
/// comes from the covering index `tokens_activity_fanout` alone.
public struct FanoutToken: Sendable, Equatable {
    public var fingerprint: Fingerprint
    public var token: DeviceToken
    public var environment: APNsEnvironment?

    public init(fingerprint: Fingerprint, token: DeviceToken, environment: APNsEnvironment?) {
        self.fingerprint = fingerprint
        self.token = token
        self.environment = environment
    }
}
