import DropTrackContract
import Foundation

#if canImport(AppIntents)
    import AppIntents
#else
    import ActivityKitShim
    import AppIntentsShim
#endif

/// The intent behind the delivery Live Activity's button (iOS 17 and later): `Button(intent:)` in the
/// widget holds one, and iOS performs it in the app's process when the button is tapped, so both the
/// widget extension and the app compile it.
///
/// `perform()` sends the press through the sync the app registered with `LiveActivityActions`; the
/// server records it, tells the app's backend (`activity_action` webhook), applies the event the action
/// stands for and pushes the next content-state, which is how the card changes.
@available(iOS 17.0, *)
public struct DeliveryActionIntent: LiveActivityIntent {
    public static var title: LocalizedStringResource { "Delivery action" }
    /// A button's intent, not a shortcut: kept out of Shortcuts and Spotlight.
    public static var isDiscoverable: Bool { false }

    /// The server's activity id (`DeliveryAttributes.dropTrackActivityID`).
    @Parameter(title: "Activity")
    public var activityID: String

    /// A `DeliveryAction`'s raw value (`confirm_receipt`).
    @Parameter(title: "Action")
    public var action: String

    public init() {}

    /// The intent for pressing `action` on the activity.
    public init(activityID: String, action: DeliveryAction) {
        self.activityID = activityID
        self.action = action.rawValue
    }

    public func perform() async throws -> some IntentResult {
        try await LiveActivityActions.press(action, activityID: activityID)
        return .result()
    }
}
