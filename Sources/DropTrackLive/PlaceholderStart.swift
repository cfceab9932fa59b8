import Foundation

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

/// The iOS 17.x push-to-start workaround: a hidden placeholder activity that makes ActivityKit hand
/// out the push-to-start token.
///
/// On iOS 17.x `Activity.pushToStartToken` stays nil, and `pushToStartTokenUpdates` silent, until the
/// app has requested an activity itself at least once; iOS 18 gives the token without one. So with
/// `LiveActivitySyncConfiguration.pushToStartPlaceholder` on, the sync asks its host at launch, on
/// 17.x only (`PushToStartAvailability`), to request this placeholder and end it at once with
/// immediate dismissal: the person never sees a card. Its attributes name
/// `PlaceholderActivity.activityID`, which the sync never registers an update token or a lifecycle
/// report for. Requesting needs the app in the foreground, as every local start does.
@available(iOS 16.2, *)
public struct PlaceholderStart<Attributes: ActivityAttributes & DropTrackIdentifiedAttributes & Sendable>: Sendable {
    /// The placeholder's attributes, naming `PlaceholderActivity.activityID`.
    public let attributes: Attributes
    /// Any state the type decodes (the card is dismissed before it is drawn), kept encoded: ActivityKit
    /// does not require a content state to be `Sendable`, and the host holding this one is.
    private let encodedState: Data

    /// A placeholder whose attributes `makeAttributes` builds around the reserved server activity id.
    public init(
        makeAttributes: (_ activityID: String) -> Attributes, state: Attributes.ContentState
    ) throws(PlaceholderError) {
        attributes = makeAttributes(PlaceholderActivity.activityID)
        do {
            encodedState = try JSONEncoder().encode(state)
        } catch {
            throw PlaceholderError("the placeholder's state does not encode (\(type(of: error)))")
        }
    }

    /// Requests the placeholder (`pushType: .token`, as the apps that found the workaround did) and ends
    /// it at once with immediate dismissal.
    public func run() async throws(PlaceholderError) {
        guard attributes.dropTrackActivityID == PlaceholderActivity.activityID else {
            throw PlaceholderError(
                "the placeholder's attributes name '\(attributes.dropTrackActivityID)': build them from the id "
                    + "PlaceholderStart passes to makeAttributes, so the sync knows to leave it alone")
        }
        let activity: Activity<Attributes>
        do {
            let state = try JSONDecoder().decode(Attributes.ContentState.self, from: encodedState)
            activity = try Activity<Attributes>.request(
                attributes: attributes, content: ActivityContent(state: state, staleDate: nil), pushType: .token)
        } catch {
            throw PlaceholderError(
                "ActivityKit refused the placeholder (\(error)): Live Activities may be off for the app, or the "
                    + "app was not in the foreground")
        }
        await activity.end(nil, dismissalPolicy: .immediate)
    }
}
