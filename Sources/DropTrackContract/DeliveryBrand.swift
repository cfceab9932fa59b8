import Foundation

/// The delivery card's brand colour, one for both platforms: the iOS widget's lit segments, tint and
/// keyline, and the Android card's colour and bar segments.
///
/// The default is defined once, in `vectors/brand.json`; `defaultColor` here and Kotlin's
/// `BrandColor.DEFAULT` are held to that file by ContractTests and the Android library's tests, and
/// `vectors/android-plans/` use it for the bar. An app sets its own as `DropTrackBrandColor` in its
/// widget extension's Info.plist and as the `com.droptrack.android.BRAND_COLOR` meta-data in its
/// Android manifest (the Expo config plugin's `brandColor` writes both).
public enum DeliveryBrand {
    /// DropTrack's orange.
    public static let defaultColor = "#FF5A1F"
    /// The widget extension's Info.plist key for an app's own colour.
    public static let infoPlistKey = "DropTrackBrandColor"

    /// A colour's components, 0 to 1.
    public struct RGB: Equatable, Sendable {
        public var red: Double
        public var green: Double
        public var blue: Double

        public init(red: Double, green: Double, blue: Double) {
            self.red = red
            self.green = green
            self.blue = blue
        }
    }

    /// The components of `#RRGGBB`; nil for anything else.
    public static func rgb(_ hex: String) -> RGB? {
        guard hex.count == 7, hex.first == "#", let value = UInt32(hex.dropFirst(), radix: 16) else { return nil }
        func component(_ shift: UInt32) -> Double { Double((value >> shift) & 0xFF) / 255 }
        return RGB(red: component(16), green: component(8), blue: component(0))
    }

    /// The colour to draw with: the app's, when it set a valid `#RRGGBB`, else the default.
    public static func resolved(_ configured: Any?) -> RGB {
        if let text = configured as? String, let color = rgb(text) { return color }
        return rgb(defaultColor)!
    }
}
