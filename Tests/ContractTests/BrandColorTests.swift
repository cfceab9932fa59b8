import DropTrackContract
import DropTrackTesting
import Foundation
import Testing

@testable import DropTrackWidgets

#if !canImport(WidgetKit)
    import ActivityKitShim
    import SwiftUIShim
    import WidgetKitShim
#endif

/// One brand colour on both platforms: `vectors/brand.json` defines the default, and the widget, the
/// Android plans and the simulated Android phone all draw with it (the Kotlin tests read the same file).
@Suite("Brand colour: one default for the iOS widget and the Android card, and the app's own")
struct BrandColorTests {
    static func defaultFromVector() throws -> String {
        let object = try JSONSerialization.jsonObject(with: try vector("brand.json")) as? [String: Any]
        return try #require(object?["brandColor"] as? String)
    }

    @Test("DeliveryBrand's default is vectors/brand.json's, and every Android plan vector draws its bar with it")
    func oneDefault() throws {
        let color = try Self.defaultFromVector()
        #expect(DeliveryBrand.defaultColor == color)
        var segments = 0
        for name in vectorNames(in: "android-plans") {
            let object = try JSONSerialization.jsonObject(with: try vector("android-plans/" + name)) as? [String: Any]
            for segment in (object?["plan"] as? [String: Any])?["segments"] as? [[String: Any]] ?? [] {
                #expect(segment["color"] as? String == color, "\(name)")
                segments += 1
            }
        }
        #expect(segments > 0)
    }

    @Test("the demo dashboard draws both phones' cards in the same default")
    func dashboardBrand() throws {
        let css = try String(
            contentsOfFile: repositoryRoot + "/Sources/DropTrackDemo/Dashboard/dashboard.css", encoding: .utf8)
        #expect(css.lowercased().contains("--brand: \(try Self.defaultFromVector().lowercased());"))
    }

    @Test(
        "the widget draws with the brand colour (its Dynamic Island keyline, read from the view tree), not a system green"
    )
    @MainActor
    func widgetUsesBrand() throws {
        let configuration = try #require(DeliveryLiveActivity().body as? ActivityConfiguration<DeliveryAttributes>)
        let state = DeliveryAttributes.ContentState(
            status: "On the way", progress: DeliveryStep.onTheWay.progress, eta: Date(), stopsRemaining: 2,
            courierName: "Sam", riderReassigned: false)
        let context = ActivityViewContext<DeliveryAttributes>(
            attributes: DeliveryAttributes(orderId: "4711"), state: state, isStale: false, activityID: "a1")
        let island = configuration.dynamicIsland(context)
        // The test process has no widget Info.plist: the default.
        #expect(island.keylineTintColor == Color.brand(nil))
        #expect(Color.brand(nil) == Color(red: 1, green: 90.0 / 255, blue: 31.0 / 255))
        #expect(island.keylineTintColor != .green)
    }

    @Test("an app's own #RRGGBB is used; anything else falls back to the default")
    func appColour() {
        #expect(DeliveryBrand.resolved("#0A84FF") == .init(red: 10.0 / 255, green: 132.0 / 255, blue: 1))
        #expect(Color.brand("#0A84FF") == Color(red: 10.0 / 255, green: 132.0 / 255, blue: 1))
        let fallback = DeliveryBrand.rgb(DeliveryBrand.defaultColor)
        for bad in ["0A84FF", "#0A84F", "#GGGGGG", "", "#0A84FFAA"] as [Any] + [42, NSNull()] {
            #expect(DeliveryBrand.resolved(bad) == fallback, "\(bad)")
        }
        #expect(DeliveryBrand.resolved(nil) == fallback)
    }
}
