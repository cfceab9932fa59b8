// What the simulated iPhone holds and reports: its settings, its activities and the pushes it dropped.
import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackWire
import Foundation
import Synchronization

/// What a simulated iPhone is set to.
public struct IPhoneSettings: Sendable, Equatable, Codable {
    /// Settings › the app › Live Activities; off means `areActivitiesEnabled()` is false and a
    /// push-to-start is refused.
    public var liveActivitiesEnabled: Bool
    /// Priority-10 updates the system delivers per activity per hour before it holds the rest back
    /// (Apple does not publish the figure; this is a parameter).
    public var priority10Budget: Int
    /// `NSSupportsLiveActivitiesFrequentUpdates`: a larger priority-10 budget.
    public var frequentUpdates: Bool
    /// The iOS major version: 17 stands for 17.x, whose push-to-start token ActivityKit withholds until
    /// the app has requested an activity itself; 18 gives it without one and adds channels and
    /// `input-push-token`.
    public var osVersion: Int

    public init(
        liveActivitiesEnabled: Bool = true, priority10Budget: Int = 12, frequentUpdates: Bool = false,
        osVersion: Int = 18
    ) {
        self.liveActivitiesEnabled = liveActivitiesEnabled
        self.priority10Budget = priority10Budget
        self.frequentUpdates = frequentUpdates
        self.osVersion = osVersion
    }

    /// The budget in force: frequent updates multiply it (the factor is a modelling choice).
    var effectiveBudget: Int { frequentUpdates ? priority10Budget * 4 : priority10Budget }
}

/// One Live Activity as the simulated phone holds it.
public struct SimulatedActivity: Sendable, Equatable, Codable {
    /// The phone's own id for it (as `Activity.id`).
    public var id: String
    public var attributesType: String
    public var attributes: JSONValue
    /// The content-state as last applied.
    public var contentState: JSONValue
    /// The update token ActivityKit issued for it (hex; in-process only, printed as its fingerprint);
    /// empty for an activity started on a broadcast channel, which gets no token.
    public var updateToken: DeviceToken
    /// The iOS 18 broadcast channel it listens on.
    public var channelID: String?
    /// The newest `timestamp` applied, by a push or by the app's local update: ActivityKit keeps
    /// one order for both.
    public var timestamp: Int64
    /// The timestamp of the newest local update, while it is still the newest applied; nil once a
    /// push overtakes it. A push blocked by it is trap DT-081, not DT-020.
    public var localUpdateTimestamp: Int64?
    public var startedAt: Date
    public var staleDate: Date?
    public var relevanceScore: Double?
    /// Set by an end push (or by the 8-hour limit).
    public var endedAt: Date?
    /// When it leaves the Lock Screen after it ended.
    public var dismissAt: Date?
    /// The banner of the newest alert it received.
    public var lastAlert: String?
    /// Priority-10 updates applied, for the budget.
    public var priority10Times: [Date]

    /// What the Lock Screen shows at `now`: active, stale, ended (still shown) or dismissed.
    public func phase(at now: Date) -> String {
        if let dismissAt, now >= dismissAt { return "dismissed" }
        if endedAt != nil || now.timeIntervalSince(startedAt) >= IPhoneSimulator.maximumActiveSeconds {
            return "ended"
        }
        if let staleDate, now >= staleDate { return "stale" }
        return "active"
    }
}

extension SimulatedActivity {
    enum CodingKeys: String, CodingKey {
        case id, attributesType, attributes, contentState, updateToken, channelID, timestamp
        case localUpdateTimestamp, startedAt, staleDate, relevanceScore, endedAt, dismissAt, lastAlert
        case priority10Times
    }

    /// Decodes the shape it always had: `updateToken` is the token's hex string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        attributesType = try container.decode(String.self, forKey: .attributesType)
        attributes = try container.decode(JSONValue.self, forKey: .attributes)
        contentState = try container.decode(JSONValue.self, forKey: .contentState)
        updateToken = DeviceToken(try container.decode(String.self, forKey: .updateToken))
        channelID = try container.decodeIfPresent(String.self, forKey: .channelID)
        timestamp = try container.decode(Int64.self, forKey: .timestamp)
        localUpdateTimestamp = try container.decodeIfPresent(Int64.self, forKey: .localUpdateTimestamp)
        startedAt = try container.decode(Date.self, forKey: .startedAt)
        staleDate = try container.decodeIfPresent(Date.self, forKey: .staleDate)
        relevanceScore = try container.decodeIfPresent(Double.self, forKey: .relevanceScore)
        endedAt = try container.decodeIfPresent(Date.self, forKey: .endedAt)
        dismissAt = try container.decodeIfPresent(Date.self, forKey: .dismissAt)
        lastAlert = try container.decodeIfPresent(String.self, forKey: .lastAlert)
        priority10Times = try container.decode([Date].self, forKey: .priority10Times)
    }

    /// Encodes the shape it always had (an in-process record: `updateToken` is the raw token, so
    /// this is never served or logged).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(attributesType, forKey: .attributesType)
        try container.encode(attributes, forKey: .attributes)
        try container.encode(contentState, forKey: .contentState)
        try container.encode(updateToken.wireValue, forKey: .updateToken)
        try container.encodeIfPresent(channelID, forKey: .channelID)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encodeIfPresent(localUpdateTimestamp, forKey: .localUpdateTimestamp)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encodeIfPresent(staleDate, forKey: .staleDate)
        try container.encodeIfPresent(relevanceScore, forKey: .relevanceScore)
        try container.encodeIfPresent(endedAt, forKey: .endedAt)
        try container.encodeIfPresent(dismissAt, forKey: .dismissAt)
        try container.encodeIfPresent(lastAlert, forKey: .lastAlert)
        try container.encode(priority10Times, forKey: .priority10Times)
    }
}

/// A push the phone received and did not apply, and why.
public struct IPhoneDrop: Sendable, Equatable, Codable {
    public var at: Date
    /// The token it came to, as a fingerprint.
    public var token: String
    /// `start`, `update`, `end`, or what the payload said.
    public var event: String
    /// The activity it was for, when known.
    public var activityId: String?
    /// The trap id, when the catalog names the failure.
    public var trap: String?
    /// Why, in words.
    public var reason: String
}
