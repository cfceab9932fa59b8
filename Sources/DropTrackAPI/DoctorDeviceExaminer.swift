import DropTrackDispatch
import DropTrackDoctor
import DropTrackModel
import DropTrackWire
import Foundation

/// The doctor's rules behind the domain's `DeviceExaminer` seam: the push examined once without the
/// device's facts and once with them, and what the facts add.
public struct DoctorDeviceExaminer: DeviceExaminer {
    /// Creates the examiner.
    public init() {}

    public func findingsAdded(by device: ExaminedDevice) -> [LintFinding] {
        let push =
            switch device.push {
            case .apns(let request): DoctorPush(request)
            case .fcm(let message, let projectID): DoctorPush(message, projectID: projectID)
            }
        let kind: DoctorContext.Token.Kind =
            switch device.kind {
            case .fcm: .fcm
            case .pushToStart: .pushToStart
            case .activity, .channelSubscription: .perActivity
            }
        var context = DoctorContext(now: Int64(device.now.timeIntervalSince1970))
        context.token = DoctorContext.Token(kind: kind, environment: device.environment)
        context.activity = DoctorContext.Activity(
            id: device.activityId.rawValue, state: DoctorContext.Activity.State(rawValue: device.activityState.rawValue)
        )
        let without = Set(Doctor.examine(push, context: context))
        context.device = device.facts
        return Doctor.examine(push, context: context).filter { !without.contains($0) }
    }
}
