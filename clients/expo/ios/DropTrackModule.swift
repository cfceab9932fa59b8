import DropTrackContract
import DropTrackLive
import Foundation

#if canImport(UIKit)
    import UIKit
#endif
#if canImport(ExpoModulesCore)
    import ExpoModulesCore
#else
    import ExpoModulesCoreShim
#endif

/// The Expo module's iOS side, on DropTrack's Swift package: exports `DropTrack` with the native
/// interface of `src/DropTrackNativeModule.ts`. `configure` starts `LiveActivitySync`, whose credential
/// requests go to JavaScript as `onCredentialNeeded` events; the delivery calls go through
/// `LiveActivityBridge`.
///
/// Available at iOS 15.1, Expo's default deployment target: Expo's generated module provider names
/// every module without an availability check, so a module marked iOS 16.2 would not compile in an app
/// targeting less. Below iOS 16.2 it answers through `UnsupportedCalls` (`isSupported()` is false).
///
/// `@unchecked Sendable`: the closures below capture it only to call `sendEvent`, which Expo allows
/// from any thread; DropTrack's state lives in the `DropTrackSession` actor.
public final class DropTrackModule: Module, @unchecked Sendable {
    public func definition() -> ModuleDefinition {
        let calls = Self.calls { [weak self] name, body in self?.sendEvent(name, body.mapValues { $0 as Any? }) }

        Name("DropTrack")
        Events("onToken", "onPush", "onCredentialNeeded")

        AsyncFunction("configure") {
            (
                serverUrl: String, userId: String, deviceId: String?, apnsEnvironment: String?,
                pushToStartPlaceholder: Bool?
            ) async throws in
            let settings = try SyncSettings(
                serverURL: serverUrl, userID: userId, deviceID: deviceId, apnsEnvironment: apnsEnvironment,
                pushToStartPlaceholder: pushToStartPlaceholder)
            try await calls.configure(settings)
        }

        AsyncFunction("setDeviceCredential") { (credential: String) async in
            await calls.supplyCredential(credential)
        }

        Function("isSupported") { () -> Bool in calls.isSupported }

        // Push-to-start (the server starts one while the app is not running) came in iOS 17.2.
        Function("isPushToStartEligible") { () -> Bool in
            guard #available(iOS 17.2, *) else { return false }
            return calls.isSupported
        }

        // Android 16's promotion check: an iPhone has none.
        Function("canPostPromotedNotifications") { () -> Bool in false }

        AsyncFunction("areActivitiesEnabled") { () -> Bool in calls.areActivitiesEnabled() }

        // Live Activities need no notification permission on iOS: nothing to ask, the answer is whether they may show.
        AsyncFunction("requestNotificationPermission") { () -> Bool in calls.areActivitiesEnabled() }

        AsyncFunction("openLiveActivitySettings") { () async -> Bool in await Self.openSettings() }

        AsyncFunction("startDelivery") { (orderId: String, state: [String: Any]) throws -> String in
            try calls.startDelivery(orderID: orderId, state: state)
        }

        AsyncFunction("updateDelivery") { (activityId: String, state: [String: Any]) async throws -> Bool in
            try await calls.updateDelivery(activityId, state: state)
        }

        AsyncFunction("endDelivery") {
            (activityId: String, state: [String: Any]?, dismissAfterSeconds: Double?) async throws in
            try await calls.endDelivery(activityId, state: state, dismissAfterSeconds: dismissAfterSeconds)
        }

        AsyncFunction("getRunningActivities") { () -> [[String: any Sendable]] in calls.runningActivities() }

        AsyncFunction("reconcile") { () async throws -> [String: any Sendable] in try await calls.reconcile() }

        // The person may have changed the Live Activities setting, or the server ended activities meanwhile.
        OnAppBecomesActive {
            Task { await calls.appBecameActive() }
        }

        OnDestroy {
            Task { await calls.stop() }
        }
    }

    /// Opens the app's page in Settings, where its Live Activities switch is; false where there is no UIKit.
    @MainActor
    static func openSettings() async -> Bool {
        #if canImport(UIKit)
            guard let url = URL(string: UIApplication.openSettingsURLString) else { return false }
            return await UIApplication.shared.open(url)
        #else
            return false
        #endif
    }

    /// The calls for this phone: live from iOS 16.2, unsupported below.
    static func calls(sendEvent: @escaping DropTrackSendEvent) -> any DropTrackCalls {
        guard #available(iOS 16.2, *) else {
            let version = ProcessInfo.processInfo.operatingSystemVersion
            return UnsupportedCalls(osVersion: "\(version.majorVersion).\(version.minorVersion)")
        }
        return LiveCalls(sendEvent: sendEvent)
    }
}
