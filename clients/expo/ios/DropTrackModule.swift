import DropTrackContract
import DropTrackLive
import Foundation

#if canImport(ExpoModulesCore)
    import ExpoModulesCore
#else
    import ExpoModulesCoreShim
#endif

/// The Expo module's iOS side, on DropTrack's Swift package: exports `DropTrack` with the native
/// interface of `src/DropTrackNativeModule.ts`. `configure` starts `LiveActivitySync`, whose credential
/// requests go to JavaScript as `onCredentialNeeded` events; the delivery calls go through
/// `LiveActivityBridge`. Needs iOS 16.2, DropTrackLive's floor.
///
/// `@unchecked Sendable`: the closures below capture it only to call `sendEvent`, which Expo allows
/// from any thread; DropTrack's state lives in the `DropTrackSession` actor.
@available(iOS 16.2, *)
public final class DropTrackModule: Module, @unchecked Sendable {
    public func definition() -> ModuleDefinition {
        let session = DropTrackSession { [weak self] name, body in self?.sendEvent(name, body.mapValues { $0 as Any? })
        }
        let deliveries = DeliveryActivities()

        Name("DropTrack")
        Events("onToken", "onPush", "onCredentialNeeded")

        AsyncFunction("configure") {
            (serverUrl: String, userId: String, deviceId: String?, apnsEnvironment: String?) async throws in
            let settings = try SyncSettings(
                serverURL: serverUrl, userID: userId, deviceID: deviceId, apnsEnvironment: apnsEnvironment)
            try await session.configure(settings)
        }

        AsyncFunction("setDeviceCredential") { (credential: String) async in
            await session.supplyCredential(credential)
        }

        Function("isSupported") { () -> Bool in deliveries.bridge.isSupported }

        AsyncFunction("areActivitiesEnabled") { () -> Bool in deliveries.bridge.areActivitiesEnabled }

        AsyncFunction("startDelivery") { (orderId: String, state: [String: Any]) throws -> String in
            try deliveries.start(orderID: orderId, state: state)
        }

        AsyncFunction("updateDelivery") { (activityId: String, state: [String: Any]) async throws -> Bool in
            try await deliveries.update(activityId, state: state)
        }

        AsyncFunction("endDelivery") {
            (activityId: String, state: [String: Any]?, dismissAfterSeconds: Double?) async throws in
            try await deliveries.end(activityId, state: state, dismissAfterSeconds: dismissAfterSeconds)
        }

        AsyncFunction("getRunningActivities") { () -> [[String: any Sendable]] in deliveries.runningActivities() }

        AsyncFunction("reconcile") { () async throws -> [String: any Sendable] in try await session.reconcile() }

        // The person may have changed the Live Activities setting, or the server ended activities meanwhile.
        OnAppBecomesActive {
            Task { await session.appBecameActive() }
        }

        OnDestroy {
            Task { await session.stop() }
        }
    }
}
