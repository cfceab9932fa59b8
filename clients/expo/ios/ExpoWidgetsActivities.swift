import DropTrackLive
import Foundation

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitShim
#endif

/// expo-widgets' `LiveActivityAttributes` as the receipt write-up patches it: the backend's `activityId`
/// rides in the attributes (set at `start()` or by the push-to-start), so the update token of an
/// activity started by push finds its record. ActivityKit knows an attributes type by its name, as a
/// push-to-start's `attributes-type` does, so this declaration sees the activities expo-widgets' own
/// type starts. Their update tokens are registered with `{"attributes": {"activityId": …}}`, which
/// needs the app's schema to declare `activityIdAttribute`; one without `activityId` is left alone.
@available(iOS 16.2, *)
struct LiveActivityAttributes: ActivityAttributes, DropTrackIdentifiedAttributes, Sendable {
    /// What one widget shows: the registered widget's `name` and its props as JSON text.
    struct ContentState: Codable, Hashable, Sendable {
        var name: String
        var props: String?
    }

    var url: String?
    /// The backend's activity id (the patch); nil in an unpatched build.
    var activityId: String?

    var dropTrackActivityID: String { activityId ?? "" }

    var dropTrackRegistrationAttributes: [String: String]? { activityId.map { ["activityId": $0] } }
}
