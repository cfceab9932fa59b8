import DropTrackContract
import DropTrackCore
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

// iOS 18 broadcast channels: created for an activity that asks, deleted with it if the server made it.
extension ActivityRegistry {
    /// What the server keeps in an activity's mapper state for itself; a mapper's new state keeps them.
    static let serverMemoryKeys = ["startAlert", "broadcastExpiration", "channelOwned", expoWidgetKey, "audience"]
    /// Where an expo-widgets activity keeps the widget its start chose, for every later wrapper.
    static let expoWidgetKey = "expoWidget"

    /// The channel was created by the server (not given by the caller), so dismissal deletes it; a
    /// channel the caller brought may serve other activities and is left alone.
    static func markChannelOwned(_ activity: inout ActivityRecord) {
        var memory = activity.mapperState?.objectValue ?? [:]
        memory["channelOwned"] = .bool(true)
        activity.mapperState = .object(memory)
    }

    /// Creates the broadcast channel a new activity asked for; returns its id (to delete it if the
    /// activity is not stored after all).
    func openChannel(_ activity: inout ActivityRecord, app: AppConfiguration) throws(Refusal) -> String? {
        guard let raw = activity.channelPolicy, activity.channelId == nil,
            let policy = MessageStoragePolicy(rawValue: raw)
        else { return nil }
        guard let channels, app.apns != nil else {
            throw Refusal.unprocessable(
                code: .noCredentials, message: "broadcast activities need the app's APNs credentials",
                field: "broadcast")
        }
        switch channels.createChannel(app: app.id, policy: policy) {
        case .success(let id):
            activity.channelId = id
            Self.markChannelOwned(&activity)
            return id
        case .failure(let failure):
            throw Refusal.unavailable(
                code: .channelUnavailable, message: "APNs did not create the channel: \(failure.explanation); retry",
                field: "broadcast")
        }
    }

    func closeChannelUnlessStored(_ id: String, app: String, activityId: String) {
        let stored = try? store.transaction { try $0.activity(app: app, id: activityId)?.channelId }
        if stored != id { _ = channels?.deleteChannel(app: app, id: id) }
    }

    /// The broadcast channel an activity uses, if any.
    public func channelOf(app: String, activityId: String) -> String? {
        (try? store.transaction { try $0.activity(app: app, id: activityId)?.channelId }) ?? nil
    }
}
