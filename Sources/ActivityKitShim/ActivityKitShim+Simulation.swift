import Foundation

// Hooks for a test-side device simulator (same package only): what the system does on a phone and the
// look-alike cannot do by itself. Not part of ActivityKit's API.

@available(iOS 16.1, *)
extension Activity {
    /// The system issued (or rotated) this activity's push token: `pushToken` and `pushTokenUpdates`.
    package func simulatePushToken(_ token: Data) {
        model.setPushToken(token)
    }

    /// The system moved the activity to `state` (`.active` when a scheduled start comes, `.stale` at its
    /// stale date, `.dismissed`).
    package func simulateState(_ state: ActivityState) {
        model.setState(state)
        if state == .dismissed { Registry<Attributes>.shared.remove(id) }
    }

    /// The system issued the push-to-start token of this attributes type.
    package static func simulatePushToStartToken(_ token: Data) {
        Registry<Attributes>.shared.setPushToStartToken(token)
    }

    /// A push-to-start notification started an activity: it appears in `activities` and `activityUpdates`.
    @available(iOS 16.2, *)
    package static func simulateRemoteStart(
        attributes: Attributes, content: ActivityContent<Activity<Attributes>.ContentState>
    ) -> Activity<Attributes> {
        let activity = Activity(attributes: attributes, state: .active, content: content)
        Registry<Attributes>.shared.add(activity)
        return activity
    }
}

@available(iOS 16.1, *)
extension ActivityAuthorizationInfo {
    /// The person changed the Live Activities settings.
    package static func simulateSettings(activitiesEnabled: Bool, frequentPushesEnabled: Bool) {
        store.set(activitiesEnabled: activitiesEnabled, frequentPushesEnabled: frequentPushesEnabled)
    }
}
