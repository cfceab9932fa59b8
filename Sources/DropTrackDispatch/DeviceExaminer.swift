import DropTrackModel
import DropTrackWire
import Foundation

/// A push as one device would get it now.
public enum ExaminedPush: Sendable {
    /// An APNs request, to a device token or a broadcast channel.
    case apns(APNsPush)
    /// An FCM message, sent through the app's Firebase project.
    case fcm(FCMMessage, projectID: String)
}

/// One device of an activity, for the doctor: the push it would get, its token's kind and
/// environment, the activity's state and what the app reported about the device.
public struct ExaminedDevice: Sendable {
    /// The push the device would get now.
    public var push: ExaminedPush
    /// The kind of token the push goes to.
    public var kind: TokenKind
    /// The token's APNs environment, for iOS tokens.
    public var environment: APNsEnvironment?
    /// The activity the push belongs to.
    public var activityId: ActivityID
    /// Its lifecycle state.
    public var activityState: ActivityState
    /// What the app reported about the device.
    public var facts: DeviceFacts
    /// Now, by the injected clock.
    public var now: Date

    /// Creates the description of one device.
    public init(
        push: ExaminedPush, kind: TokenKind, environment: APNsEnvironment?, activityId: ActivityID,
        activityState: ActivityState, facts: DeviceFacts, now: Date
    ) {
        self.push = push
        self.kind = kind
        self.environment = environment
        self.activityId = activityId
        self.activityState = activityState
        self.facts = facts
        self.now = now
    }
}

/// The doctor as the domain sees it: the traps a device's reported facts add to those its push has
/// anyway. The domain does not import the doctor; the composition root gives the registry the
/// doctor's examiner (`DoctorDeviceExaminer`, in the API target), so a diagnosis applies the same
/// rules `droptrack doctor` and `/v1/doctor` do.
public protocol DeviceExaminer: Sendable {
    /// The findings `device.facts` add to the push's own, in the doctor's order.
    func findingsAdded(by device: ExaminedDevice) -> [LintFinding]
}
