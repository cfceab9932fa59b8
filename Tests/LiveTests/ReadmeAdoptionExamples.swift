// The iOS tutorial's adoption examples (docs/tutorials/ios-app.md), compiled here against DropTrackLive and the look-alikes, so
// the tutorial cannot quote code that does not build. `ReadmeAdoptionTests` compares the tutorial's
// blocks with the regions between the `README:` markers below, line for line.
import DropTrackContract
import DropTrackLive
import DropTrackWidgets
import Foundation

// `WidgetBundle` and `Widget` are SwiftUI's; WidgetKit does not re-export SwiftUI.
#if canImport(SwiftUI)
    import SwiftUI
#else
    import SwiftUIShim
#endif
#if canImport(WidgetKit)
    import WidgetKit
#else
    import WidgetKitShim
#endif

// README: ios-launch
/// Call once at launch (from your `App`'s `init`, in a `Task`), and keep the sync.
@available(iOS 16.2, *)
func startDropTrack(
    server: URL, deviceID: String,
    credentialFromBackend: @escaping @Sendable () async throws -> String
) async throws -> LiveActivitySync {
    // The phone holds no API key: your backend mints a short-lived device credential for the
    // signed-in user (POST /v1/device-credentials with its API key), and the app asks it for one.
    let api = HTTPDeviceAPI(baseURL: server, credential: credentialFromBackend)
    let sync = LiveActivitySync(
        host: ActivityKitHost(DeliveryAttributes.self),
        api: api,
        ledger: try FileRegistrationLedger.applicationSupport(),
        configuration: LiveActivitySyncConfiguration(deviceID: deviceID))
    await sync.start()  // registers every token now, and again whenever one rotates
    _ = await sync.reconcile()  // ends what the server ended; reports what the phone lost
    LiveActivityActions.register(sync)  // the card's button (iOS 17+) sends its press through it
    return sync
}
// README: end

// README: ios-widget
struct ShopWidgets: WidgetBundle {
    var body: some Widget {
        // Your other widgets; the Live Activity from iOS 16.2 (a bundle's `if` must be `#available`).
        if #available(iOS 16.2, *) {
            DeliveryLiveActivity()
        }
    }
}
// README: end
