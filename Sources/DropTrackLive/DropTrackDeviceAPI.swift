import Foundation

/// Which APNs the tokens belong to: a development-signed build gets sandbox tokens, every other
/// build production ones. A token sent to the other environment is refused by APNs.
public enum APNsEnvironment: String, Sendable, Codable, Equatable {
    case sandbox, production

    /// What this build's provisioning profile says: `aps-environment` `development` in the embedded
    /// profile is sandbox; App Store builds carry no profile and TestFlight/ad hoc ones say production.
    public static var ofThisBuild: APNsEnvironment {
        guard let url = Bundle.main.url(forResource: "embedded", withExtension: "mobileprovision"),
            let data = try? Data(contentsOf: url)
        else { return .production }
        return fromProvisioningProfile(data)
    }

    /// Reads `aps-environment` out of a provisioning profile (a signed plist whose XML is plain text inside).
    public static func fromProvisioningProfile(_ data: Data) -> APNsEnvironment {
        let text = String(decoding: data, as: UTF8.self).replacingOccurrences(of: " ", with: "")
            .replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "\t", with: "")
        return text.contains("<key>aps-environment</key><string>development</string>") ? .sandbox : .production
    }
}

/// `POST /v1/tokens/push-to-start`.
public struct PushToStartRegistration: Sendable, Equatable {
    public var deviceID: String
    public var attributesType: String
    public var token: Data
    public var environment: APNsEnvironment
    public var facts: DeviceFacts

    public init(deviceID: String, attributesType: String, token: Data, environment: APNsEnvironment, facts: DeviceFacts)
    {
        self.deviceID = deviceID
        self.attributesType = attributesType
        self.token = token
        self.environment = environment
        self.facts = facts
    }
}

/// `POST /v1/tokens/activity`.
public struct ActivityTokenRegistration: Sendable, Equatable {
    public var deviceID: String
    public var activityID: String
    public var token: Data
    public var environment: APNsEnvironment
    public var facts: DeviceFacts
    /// The attributes the token is matched by instead of `activityID` (a patched expo-widgets'
    /// `{"activityId": …}`, read from the activity); nil sends `activityId`.
    public var attributes: [String: String]?

    public init(
        deviceID: String, activityID: String, token: Data, environment: APNsEnvironment, facts: DeviceFacts,
        attributes: [String: String]? = nil
    ) {
        self.deviceID = deviceID
        self.activityID = activityID
        self.token = token
        self.environment = environment
        self.facts = facts
        self.attributes = attributes
    }
}

/// What the phone saw happen to an activity (`POST /v1/activities/{id}/lifecycle`).
public struct LifecycleReport: Sendable, Equatable, Codable, Hashable {
    /// What the phone saw; `lost` means it does not have the activity any more.
    public enum State: String, Sendable, Codable {
        case active, stale, ended, dismissed, lost
    }

    public var activityID: String
    public var deviceID: String
    public var state: State
    public var reason: String?

    public init(activityID: String, deviceID: String, state: State, reason: String? = nil) {
        self.activityID = activityID
        self.deviceID = deviceID
        self.state = state
        self.reason = reason
    }
}

/// A press of a Live Activity's button (`POST /v1/activities/{id}/actions`).
public struct ActionPress: Sendable, Equatable, Hashable {
    /// The server's activity id.
    public var activityID: String
    /// This phone's device id.
    public var deviceID: String
    /// The action's name, one the activity's attributes type declares (`confirm_receipt`).
    public var action: String

    public init(activityID: String, deviceID: String, action: String) {
        self.activityID = activityID
        self.deviceID = deviceID
        self.action = action
    }
}

/// One entry of `GET /v1/devices/{deviceId}/activities`: what the server believes the device shows.
public struct ServerDeviceActivity: Sendable, Equatable, Codable {
    public var activityId: String
    public var attributesType: String
    /// `pending`, `active`, `stale`, `ended` or `dismissed`.
    public var state: String
    public var version: Int
    public var tokenFingerprint: String?
    public var tokenValid: Bool

    public init(
        activityId: String, attributesType: String, state: String, version: Int, tokenFingerprint: String?,
        tokenValid: Bool
    ) {
        self.activityId = activityId
        self.attributesType = attributesType
        self.state = state
        self.version = version
        self.tokenFingerprint = tokenFingerprint
        self.tokenValid = tokenValid
    }

    /// The server considers it over.
    public var isOver: Bool { state == "ended" || state == "dismissed" }
}

/// The seam to the DropTrack server: the routes a phone may call (docs/reference/device-api.md).
/// `HTTPDeviceAPI` is the real one.
public protocol DropTrackDeviceAPI: Sendable {
    func registerPushToStartToken(_ registration: PushToStartRegistration) async throws(DeviceAPIError)
    func registerActivityToken(_ registration: ActivityTokenRegistration) async throws(DeviceAPIError)
    /// `DELETE /v1/tokens/{fingerprint}`.
    func deleteToken(_ fingerprint: TokenFingerprint) async throws(DeviceAPIError)
    /// `GET /v1/activities/{id}`: the server's state of one of the user's activities.
    func activityState(activityID: String) async throws(DeviceAPIError) -> String
    /// `GET /v1/devices/{deviceId}/activities`.
    func deviceActivities(deviceID: String) async throws(DeviceAPIError) -> [ServerDeviceActivity]
    func reportLifecycle(_ report: LifecycleReport) async throws(DeviceAPIError)
    /// `POST /v1/activities/{id}/actions`: a button in the Live Activity was pressed.
    func pressAction(_ press: ActionPress) async throws(DeviceAPIError)
    /// Forget the credential in hand, so the next call asks the app's backend for a fresh one (after a 401).
    func invalidateCredential() async
}
