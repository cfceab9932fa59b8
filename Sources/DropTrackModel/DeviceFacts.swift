/// What the app reports about the device it runs on (the `device` object of a token registration):
/// what the doctor reads to say why a device would not show a push, and the domain keeps with the
/// token. Every fact is optional: an app reports what its platform tells it.
public struct DeviceFacts: Sendable, Codable, Equatable {
    /// The OS version, e.g. `17.2`, `18.1` (iOS) or `16` (Android).
    public var osVersion: String?
    /// The app build.
    public var appBuild: String?
    /// The Android manufacturer, e.g. `samsung`.
    public var manufacturer: String?
    /// The token comes from a simulator or emulator.
    public var isSimulator: Bool?
    /// The token comes from a development client (Expo Go, a dev build).
    public var isDevClient: Bool?
    /// iOS `ActivityAuthorizationInfo().areActivitiesEnabled`.
    public var areActivitiesEnabled: Bool?
    /// iOS `ActivityAuthorizationInfo().frequentPushesEnabled`.
    public var frequentPushesEnabled: Bool?
    /// Android `areNotificationsEnabled()` (the POST_NOTIFICATIONS permission).
    public var notificationsEnabled: Bool?
    /// Android `canPostPromotedNotifications()`: the permission is declared and not revoked.
    public var canPostPromoted: Bool?
    /// Android: the user's per-app Live Updates switch.
    public var userAllowsLiveUpdates: Bool?
    /// Activities of this app the server believes are running on the device.
    public var activeActivities: Int?
    /// App launches since the device reported Live Activities enabled, with no push-to-start token yet.
    public var launchesWithoutPushToStartToken: Int?

    /// Creates device facts.
    public init(
        osVersion: String? = nil, appBuild: String? = nil, manufacturer: String? = nil, isSimulator: Bool? = nil,
        isDevClient: Bool? = nil, areActivitiesEnabled: Bool? = nil, frequentPushesEnabled: Bool? = nil,
        notificationsEnabled: Bool? = nil, canPostPromoted: Bool? = nil, userAllowsLiveUpdates: Bool? = nil,
        activeActivities: Int? = nil, launchesWithoutPushToStartToken: Int? = nil
    ) {
        self.osVersion = osVersion
        self.appBuild = appBuild
        self.manufacturer = manufacturer
        self.isSimulator = isSimulator
        self.isDevClient = isDevClient
        self.areActivitiesEnabled = areActivitiesEnabled
        self.frequentPushesEnabled = frequentPushesEnabled
        self.notificationsEnabled = notificationsEnabled
        self.canPostPromoted = canPostPromoted
        self.userAllowsLiveUpdates = userAllowsLiveUpdates
        self.activeActivities = activeActivities
        self.launchesWithoutPushToStartToken = launchesWithoutPushToStartToken
    }

    /// The keys of the JSON object, each fact's name.
    public static var keys: [String] { CodingKeys.allCases.map(\.rawValue) }

    /// The facts' JSON names.
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case osVersion, appBuild, manufacturer, isSimulator, isDevClient, areActivitiesEnabled
        case frequentPushesEnabled, notificationsEnabled, canPostPromoted, userAllowsLiveUpdates
        case activeActivities, launchesWithoutPushToStartToken
    }

    /// The major and minor OS version as numbers (`18.1` → (18, 1)), or nil.
    public var osMajorMinor: (major: Int, minor: Int)? {
        guard let osVersion else { return nil }
        let parts = osVersion.split(separator: ".").map { Int($0) }
        guard let major = parts.first ?? nil else { return nil }
        return (major, parts.count > 1 ? parts[1] ?? 0 : 0)
    }
}
