import DropTrackLive
import Foundation

/// The server in memory: records every call, and fails the next calls as scripted.
actor InMemoryDeviceAPI: DropTrackDeviceAPI {
    enum Call: Equatable {
        case pushToStart(type: String, token: TokenFingerprint, environment: APNsEnvironment, facts: DeviceFacts)
        case activityToken(activityID: String, token: TokenFingerprint, facts: DeviceFacts)
        case deleteToken(String)
        case activityState(String)
        case deviceActivities(String)
        case lifecycle(LifecycleReport)
        case press(ActionPress)
    }

    private(set) var calls: [Call] = []
    private(set) var credentialRefreshes = 0
    /// Errors the next calls throw, one each, before calls succeed again.
    var failures: [DeviceAPIError] = []
    /// Fail every call with this until cleared (the server is down).
    var down: DeviceAPIError?
    var serverActivities: [ServerDeviceActivity] = []

    func fail(_ errors: DeviceAPIError...) { failures += errors }
    func setDown(_ error: DeviceAPIError?) { down = error }
    func setServerActivities(_ activities: [ServerDeviceActivity]) { serverActivities = activities }

    var registrations: [Call] {
        calls.filter {
            switch $0 {
            case .pushToStart, .activityToken: true
            default: false
            }
        }
    }

    var reports: [LifecycleReport] {
        calls.compactMap {
            if case .lifecycle(let report) = $0 { return report }
            return nil
        }
    }

    private func answer(_ call: Call) throws(DeviceAPIError) {
        if let down { throw down }
        if !failures.isEmpty { throw failures.removeFirst() }
        calls.append(call)
    }

    func registerPushToStartToken(_ registration: PushToStartRegistration) async throws(DeviceAPIError) {
        try answer(
            .pushToStart(
                type: registration.attributesType, token: TokenFingerprint(token: registration.token),
                environment: registration.environment, facts: registration.facts))
    }

    func pressAction(_ press: ActionPress) async throws(DeviceAPIError) { try answer(.press(press)) }

    func registerActivityToken(_ registration: ActivityTokenRegistration) async throws(DeviceAPIError) {
        try answer(
            .activityToken(
                activityID: registration.activityID, token: TokenFingerprint(token: registration.token),
                facts: registration.facts))
    }

    func deleteToken(_ fingerprint: TokenFingerprint) async throws(DeviceAPIError) {
        try answer(.deleteToken(fingerprint.server))
    }

    func activityState(activityID: String) async throws(DeviceAPIError) -> String {
        try answer(.activityState(activityID))
        return serverActivities.first { $0.activityId == activityID }?.state ?? "active"
    }

    func deviceActivities(deviceID: String) async throws(DeviceAPIError) -> [ServerDeviceActivity] {
        try answer(.deviceActivities(deviceID))
        return serverActivities
    }

    func reportLifecycle(_ report: LifecycleReport) async throws(DeviceAPIError) { try answer(.lifecycle(report)) }

    func invalidateCredential() async { credentialRefreshes += 1 }
}

extension DeviceAPIError {
    static let unavailable = DeviceAPIError(status: 503, code: "store_unavailable", message: "the store is down")
    static let unauthorized = DeviceAPIError(status: 401, code: "credential_expired", message: "expired")
    static let refused = DeviceAPIError(status: 422, code: "unknown_attributes_type", message: "no such type")
    static let noRoute = DeviceAPIError(status: 404, code: "no_route", message: "no endpoint")
}

/// Token bytes made from one repeated byte, so tests can tell tokens apart.
func token(_ byte: UInt8, count: Int = 32) -> Data { Data(repeating: byte, count: count) }
