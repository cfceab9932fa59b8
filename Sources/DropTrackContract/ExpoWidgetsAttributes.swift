import Foundation

/// The ActivityKit type an expo-widgets app starts, mirrored field for field: expo-widgets declares
/// `struct LiveActivityAttributes: ActivityAttributes { var url: String?; struct ContentState { var
/// name: String; var props: String? } }` (packages/expo-widgets/ios/Widgets/WidgetLiveActivity.swift)
/// with synthesized Codable, so the keys are the property names. iOS finds the type by this exact
/// name and decodes `attributes` and `content-state` into it; anything else is dropped without a word.
public struct ExpoWidgetsAttributes: Codable, Hashable, Sendable {
    /// What one widget shows: which registered widget (`name`) and its props as JSON text.
    public struct ContentState: Codable, Hashable, Sendable {
        /// The widget name the app registered its layout under.
        public var name: String
        /// The widget's props, a JSON object serialized to a string.
        public var props: String?

        public init(name: String, props: String?) {
            self.name = name
            self.props = props
        }
    }

    /// The deep link the activity opens, kept across updates.
    public var url: String?

    public init(url: String? = nil) { self.url = url }

    /// The name iOS looks up in `attributes-type`: whatever name a schema is registered under.
    public static let typeName = "LiveActivityAttributes"
    /// The attribute keys the type decodes; any other key is ignored by the phone and lost.
    public static let attributeKeys: Set<String> = ["url"]
    /// The key a patched expo-widgets adds to `LiveActivityAttributes` (`var activityId: String?`, the
    /// receipt write-up's patch): the backend's id, set by the start and read by the app wherever it
    /// reports a token, so that the token of an activity started by push finds its record.
    public static let activityIdKey = "activityId"
}
