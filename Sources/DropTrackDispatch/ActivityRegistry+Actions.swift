import DropTrackContract
import DropTrackModel
import DropTrackStore
import Foundation

// A button in a Live Activity (an App Intent that runs in the app's process on iOS 17 and later) reaches
// the server as a press: the attributes type declares which actions exist and the event each stands
// for, so the card moves on at once; the app's backend hears of the press as the `activity_action`
// webhook event, in the same transaction.

/// A press of a Live Activity's button, as the phone sends it.
public struct PressAction: Sendable, Hashable {
    /// The device the press came from.
    public var deviceId: String
    /// The action's name, one the activity's attributes type declares (`confirm_receipt`).
    public var action: String

    public init(deviceId: String, action: String) {
        self.deviceId = deviceId
        self.action = action
    }
}

/// What a press did.
public struct ActionPressed: Sendable, Equatable {
    /// The activity pressed on.
    public var activityId: String
    /// The device pressed on.
    public var deviceId: String
    /// The action pressed.
    public var action: String
    /// The version the press's event made (pushed to the activity's devices).
    public var version: ActivityVersion
}

extension ContractBook {
    /// The actions `type` declares, each with the event it stands for; none for a type that declares none.
    func actions(_ type: String) -> [String: ApplyEvent] {
        guard type == DeliveryAttributes.typeName else { return [:] }
        return Dictionary(
            uniqueKeysWithValues: DeliveryAction.allCases.map {
                ($0.rawValue, ApplyEvent(type: "delivery.step", data: .object(["step": .string($0.step.name)])))
            })
    }
}

extension ActivityRegistry {
    /// Records a press of the activity's button and applies the event it stands for. With `user` (a
    /// device credential), the activity must be that user's or shared with them (else 404, as for a
    /// missing one), and a member presses from its own devices only.
    public func pressAction(app appID: String, activityId: String, _ press: PressAction, user: String? = nil)
        throws(Refusal) -> ActionPressed
    {
        let version = try mutate(app: appID, activityId: activityId) { activity, tx, app, now in
            guard try user.map({ try self.visible(activity, to: $0, tx: tx) }) ?? true,
                try user.map({
                    try !activity.isShared || self.deviceOwned(press.deviceId, by: $0, app: appID, tx: tx)
                }) ?? true
            else { throw Refusal.notFound("no activity '\(activityId)'", field: "activityId") }
            let declared = self.contracts(app).actions(activity.attributesType)
            guard let event = declared[press.action] else {
                let fix =
                    declared.isEmpty
                    ? "\(activity.attributesType) declares no actions; only DeliveryAttributes activities have buttons"
                    : "send one of \(declared.keys.sorted().joined(separator: ", "))"
                throw Refusal.unprocessable(
                    code: .unknownAction,
                    message:
                        "'action' '\(press.action.prefix(40))' is not an action of \(activity.attributesType); \(fix)",
                    field: "action")
            }
            try self.requireOpen(activity)
            let pressedAt = activity.version
            let version = try self.applyMapped(event, to: &activity, app: app, tx: tx, now: now)
            try self.webhooks.record(
                tx, app: appID, activityId: activityId, event: .activityAction,
                data: [
                    "deviceId": .string(press.deviceId), "action": .string(press.action),
                    "version": .number(Double(version.version)),
                ], at: now)
            try tx.appendTimeline([
                TimelineEntry(
                    app: appID, activityId: activityId, at: now, destination: .activity, provider: .server,
                    event: "device_action", version: pressedAt, status: 0, reason: press.action, remedy: .none,
                    latencyMs: 0, priority: 0, attempt: 0, note: "deviceId \(press.deviceId)")
            ])
            return version
        }
        return ActionPressed(activityId: activityId, deviceId: press.deviceId, action: press.action, version: version)
    }
}
