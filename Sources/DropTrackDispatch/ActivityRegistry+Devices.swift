import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import Foundation

/// What a phone saw of its Live Activity or Live Update (`POST /v1/activities/{id}/lifecycle`).
public enum DeviceLifecycleState: String, Sendable, Hashable, CaseIterable {
    /// Shown and current.
    case active
    /// Shown, past its stale date.
    case stale
    /// Ended, still on the Lock Screen.
    case ended
    /// The person swiped it away, or it left the Lock Screen.
    case dismissed
    /// The phone does not have it any more (reinstalled, or the system dropped it).
    case lost

    /// Whether the device can no longer show the activity, so its update tokens are invalidated.
    public var endsDelivery: Bool { self == .ended || self == .dismissed || self == .lost }

    /// What its update tokens are invalidated with, when it ends delivery.
    var invalidation: InvalidationReason {
        switch self {
        case .dismissed: .deviceDismissed
        case .lost: .deviceLost
        case .active, .stale, .ended: .deviceEnded
        }
    }
}

/// A phone's lifecycle report for one activity.
public struct ReportLifecycle: Sendable, Hashable {
    /// The device reporting (its update tokens are the ones invalidated).
    public var deviceId: String
    /// What the phone saw.
    public var state: DeviceLifecycleState
    /// The phone's own words, kept in the timeline note.
    public var reason: String?
    public init(deviceId: String, state: DeviceLifecycleState, reason: String? = nil) {
        self.deviceId = deviceId
        self.state = state
        self.reason = reason
    }
}

/// What a lifecycle report did.
public struct LifecycleReported: Sendable, Equatable {
    /// The activity reported on.
    public var activityId: String
    /// The reporting device.
    public var deviceId: String
    /// The state reported.
    public var state: DeviceLifecycleState
    /// Update tokens of this device for the activity that were invalidated.
    public var tokensInvalidated: Int
}

/// One activity a device holds an update token or channel subscription for, as the server has it.
public struct DeviceActivity: Sendable, Equatable {
    /// The activity.
    public var activityId: String
    /// Its `ActivityAttributes` type.
    public var attributesType: String
    /// Its state as the server has it.
    public var state: ActivityState
    /// Its latest version.
    public var version: Int64
    /// The device's update token or channel subscription for it.
    public var tokenFingerprint: Fingerprint
    /// False once the token was invalidated (dismissed, superseded, dead, …).
    public var tokenValid: Bool
}

// What the server believes a device shows, and what the device says it shows. `user` scopes a call
// to one user's activities (a device credential); another user's activity answers as a missing one.
extension ActivityRegistry {
    /// Every activity the device has an update token or channel subscription for, valid or not.
    public func deviceActivities(app appID: String, deviceId: String, user: String? = nil)
        throws(Refusal) -> [DeviceActivity]
    {
        _ = try app(appID)
        return try transact { tx in
            var found: [DeviceActivity] = []
            for token in try tx.tokens(app: appID, deviceIds: [deviceId])
            where token.kind == .activity || token.kind == .channelSubscription {
                guard let activityId = token.activityId, let activity = try tx.activity(app: appID, id: activityId),
                    try user.map({
                        try self.visible(activity, to: $0, tx: tx)
                            && (!activity.isShared || self.deviceOwned(deviceId, by: $0, app: appID, tx: tx))
                    }) ?? true
                else { continue }
                found.append(
                    DeviceActivity(
                        activityId: activity.id, attributesType: activity.attributesType, state: activity.state,
                        version: activity.version, tokenFingerprint: token.fingerprint, tokenValid: token.isValid))
            }
            return found
        }
    }

    /// Records what a device saw; ended, dismissed and lost invalidate its update tokens for the
    /// activity (reason `device_<state>`), so nothing more is sent to a token that cannot show it.
    public func reportLifecycle(
        app appID: String, activityId: String, _ report: ReportLifecycle, user: String? = nil
    ) throws(Refusal) -> LifecycleReported {
        _ = try app(appID)
        let now = clock.now()
        return try transact { tx in
            guard let activity = try tx.activity(app: appID, id: activityId),
                try user.map({ try self.visible(activity, to: $0, tx: tx) }) ?? true,
                // A member reports for its own devices only: others' tokens of a shared activity are not its own.
                try user.map({
                    try !activity.isShared || self.deviceOwned(report.deviceId, by: $0, app: appID, tx: tx)
                }) ?? true
            else { throw Refusal.notFound("no activity '\(activityId)'", field: "activityId") }
            var invalidated: [Fingerprint] = []
            if report.state.endsDelivery {
                invalidated = try tx.validTokens(app: appID, deviceIds: [report.deviceId]).filter {
                    $0.kind == .activity && $0.activityId == activityId
                }.map(\.fingerprint)
                if !invalidated.isEmpty {
                    try tx.invalidateTokens(
                        app: appID, fingerprints: invalidated, reason: report.state.invalidation, at: now)
                    try webhooks.record(
                        tx, app: appID, activityId: activityId, event: .tokenInvalidated,
                        data: [
                            "fingerprints": .array(invalidated.map { .string($0.value) }),
                            "reason": .string(report.state.invalidation.stored), "by": .string("device"),
                        ], at: now)
                }
            }
            if report.state == .dismissed {
                var data: [String: JSONValue] = ["deviceId": .string(report.deviceId)]
                data["reason"] = report.reason.map { .string($0) }
                try webhooks.record(
                    tx, app: appID, activityId: activityId, event: .activityDismissed, data: data, at: now)
            }
            let note = ["deviceId \(report.deviceId)", report.reason.map { "reason: \($0)" }].compactMap { $0 }
            try tx.appendTimeline([
                TimelineEntry(
                    app: appID, activityId: activityId, at: now,
                    destination: invalidated.first.map { .token($0) } ?? .activity,
                    provider: .server, event: "device_lifecycle", version: activity.version, status: 0,
                    reason: report.state.rawValue, remedy: invalidated.isEmpty ? .none : .tokenInvalidated,
                    latencyMs: 0, priority: 0, attempt: 0, note: note.joined(separator: "; "))
            ])
            return LifecycleReported(
                activityId: activityId, deviceId: report.deviceId, state: report.state,
                tokensInvalidated: invalidated.count)
        }
    }

    /// Whether the activity exists and is this user's, or shared with them as a member (false for both a
    /// missing one and another user's).
    public func activity(app appID: String, id activityId: String, belongsTo user: String) throws(Refusal)
        -> Bool
    {
        try transact { tx in try self.visible(tx.activity(app: appID, id: activityId), to: user, tx: tx) }
    }

    /// Whether this user may register a token of `deviceId` for the activity: any device for its own
    /// activity, its own devices only for a shared one. A registration supersedes the device's other
    /// tokens for the activity (a channel subscription its update tokens, an update token the one it
    /// replaces), so a member naming another member's device would invalidate that member's tokens.
    public func device(
        app appID: String, id deviceId: String, mayRegisterFor activityId: String, user: String
    ) throws(Refusal) -> Bool {
        try transact { tx in
            guard let activity = try tx.activity(app: appID, id: activityId), activity.isShared else { return true }
            return try self.deviceOwned(deviceId, by: user, app: appID, tx: tx)
        }
    }

    /// Whether the token is this user's: its own `userId`, or the user (or a member) of the activity it updates.
    public func token(app appID: String, fingerprint: Fingerprint, belongsTo user: String) throws(Refusal) -> Bool {
        try transact { tx in
            guard let token = try tx.token(app: appID, fingerprint: fingerprint) else { return false }
            if let owner = token.userId { return owner == user }
            guard let activityId = token.activityId else { return false }
            guard let activity = try tx.activity(app: appID, id: activityId) else { return false }
            // A shared activity's tokens belong to each member's own devices, not to every member.
            if activity.isShared { return try self.deviceOwned(token.deviceId, by: user, app: appID, tx: tx) }
            return activity.userId == user
        }
    }
}
