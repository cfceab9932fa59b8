import DropTrackContract
import DropTrackModel
import DropTrackStore
import Foundation

// What `GET /v1/activities/{id}` shows: the whole activity to its user or the backend, and for a
// shared one, a page of members' devices to the backend and a member's own devices to that member.
extension ActivityRegistry {
    /// State, latest content-state, devices (by fingerprint) and the timeline. With a `viewer` (a device
    /// credential's user), a shared activity shows that user's own devices and their timeline entries
    /// only, read through that user's rows, never the other members'.
    /// A shared activity seen by the backend lists the devices of one `page` of its members.
    public func describe(
        app appID: String, activityId: String, timelineLimit: Int = 200, viewer: String? = nil,
        page: MemberPage = MemberPage()
    ) throws(Refusal) -> ActivitySnapshot {
        let contracts = contracts(try app(appID))
        return try transact { tx in
            guard let activity = try tx.activity(app: appID, id: activityId) else {
                throw Refusal.notFound("no activity '\(activityId)'", field: "activityId")
            }
            if let viewer, activity.isShared, activity.userId != viewer {
                return try self.memberView(activity, viewer: viewer, contracts: contracts, limit: timelineLimit, tx: tx)
            }
            if activity.isShared {
                return try self.backendView(activity, contracts: contracts, limit: timelineLimit, page: page, tx: tx)
            }
            var devices = try tx.tokens(app: appID, activityId: activityId)
            devices += try self.ownerTokens(activity, kinds: [.pushToStart, .fcm], tx: tx).filter {
                $0.kind == .fcm
                    || contracts.pushToStartMatches(tokenType: $0.attributesType, type: activity.attributesType)
            }
            devices += try tx.channelSubscriptions(app: appID, activityId: activityId)
            let timeline = try tx.timeline(app: appID, activityId: activityId, limit: timelineLimit)
            let pending = try tx.pendingOutbox(app: appID, activityId: activityId)
            return ActivitySnapshot(
                activity: activity, devices: devices, pendingSends: pending, timeline: timeline,
                progress: try self.audienceProgress(activity, tx: tx))
        }
    }

    /// The backend's view of a shared activity: the devices of one page of members, the newest timeline
    /// entries, and the progress from the start outcomes counted as they were written.
    private func backendView(
        _ activity: ActivityRecord, contracts: ContractBook, limit: Int, page asked: MemberPage,
        tx: any StoreTransaction
    ) throws -> ActivitySnapshot {
        var page = asked
        let members = try tx.members(
            app: activity.app, activityId: activity.id, after: page.after, limit: page.limit + 1)
        let listed = Array(members.prefix(page.limit))
        page.listed = listed.count
        page.next = members.count > page.limit ? listed.last : nil
        var devices = try tx.tokens(app: activity.app, userIds: listed, kinds: [.pushToStart, .fcm]).filter {
            $0.kind == .fcm || contracts.pushToStartMatches(tokenType: $0.attributesType, type: activity.attributesType)
        }
        devices += try tx.tokens(app: activity.app, deviceIds: Array(Set(devices.map(\.deviceId))).sorted()).filter {
            ($0.kind == .activity || $0.kind == .channelSubscription) && $0.activityId == activity.id
        }
        var snapshot = ActivitySnapshot(
            activity: activity, devices: devices,
            pendingSends: try tx.pendingOutbox(app: activity.app, activityId: activity.id),
            timeline: try tx.timeline(app: activity.app, activityId: activity.id, limit: limit),
            progress: try audienceProgress(activity, tx: tx))
        snapshot.devicesPage = page
        return snapshot
    }

    /// One member's view of a shared activity: its push-to-start and FCM tokens (for the activity's type),
    /// the update tokens and channel subscriptions of its own devices, and those devices' timeline entries.
    private func memberView(
        _ activity: ActivityRecord, viewer: String, contracts: ContractBook, limit: Int, tx: any StoreTransaction
    ) throws -> ActivitySnapshot {
        let own = try tx.tokens(app: activity.app, userId: viewer, kinds: [.pushToStart, .fcm]).filter {
            $0.kind == .fcm || contracts.pushToStartMatches(tokenType: $0.attributesType, type: activity.attributesType)
        }
        // A device counts as the viewer's only while it holds no other user's valid token.
        var devices = own
        for deviceId in Set(own.filter(\.isValid).map(\.deviceId)).sorted() {
            let tokens = try tx.tokens(app: activity.app, deviceIds: [deviceId])
            guard !tokens.contains(where: { $0.isValid && $0.userId != nil && $0.userId != viewer }) else { continue }
            devices += tokens.filter {
                ($0.kind == .activity || $0.kind == .channelSubscription) && $0.activityId == activity.id
            }
        }
        let timeline = try tx.timeline(
            app: activity.app, activityId: activity.id, destinations: devices.map { .token($0.fingerprint) },
            limit: limit)
        let pending = try tx.pendingOutbox(
            app: activity.app, activityId: activity.id, fingerprints: devices.map(\.fingerprint))
        return ActivitySnapshot(activity: activity, devices: devices, pendingSends: pending, timeline: timeline)
    }
}
