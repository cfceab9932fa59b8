import DropTrackContract
import DropTrackSHA256
import Foundation

/// Attributes that name the server's activity they belong to. The sync registers an activity's
/// update token under this id, so it must be the `activityId` the app's backend gave DropTrack.
public protocol DropTrackIdentifiedAttributes {
    /// The server's activity id (`POST /v1/activities` `activityId`); empty when the attributes name none.
    var dropTrackActivityID: String { get }
    /// What the update token is registered with instead of the id, when the server matches a token by
    /// the attributes the phone holds (a patched expo-widgets' `["activityId": …]`); nil by default.
    var dropTrackRegistrationAttributes: [String: String]? { get }
}

extension DropTrackIdentifiedAttributes {
    public var dropTrackRegistrationAttributes: [String: String]? { nil }
}

extension DeliveryAttributes: DropTrackIdentifiedAttributes {
    /// The backend starts the delivery activity with the order id as its activity id.
    public var dropTrackActivityID: String { orderId }
}

/// Where a Live Activity is in its life, as ActivityKit's `ActivityState` says (without needing ActivityKit).
public enum LiveActivityPhase: String, Sendable, Codable, Equatable {
    /// Scheduled to start later (iOS 26's `request(…start:)`): not on screen yet, nothing to report.
    case pending
    case active, stale, ended, dismissed

    /// Whether it is (or will be) on screen and can still take updates: what the server may end.
    public var isRunning: Bool { self == .pending || self == .active || self == .stale }
}

/// One Live Activity as the sync sees it, whatever its attributes type.
public struct LiveActivitySnapshot: Sendable, Equatable {
    /// The phone's id for it (`Activity.id`).
    public var localID: String
    /// The attributes type's name, as in `attributes-type`.
    public var attributesType: String
    /// The server's activity id read from the attributes; nil when they do not name one.
    public var serverActivityID: String?
    public var phase: LiveActivityPhase
    /// The attributes its update token is registered with (`DropTrackIdentifiedAttributes`); nil sends the id.
    public var registrationAttributes: [String: String]?

    public init(
        localID: String, attributesType: String, serverActivityID: String?, phase: LiveActivityPhase,
        registrationAttributes: [String: String]? = nil
    ) {
        self.localID = localID
        self.attributesType = attributesType
        self.serverActivityID = serverActivityID
        self.phase = phase
        self.registrationAttributes = registrationAttributes
    }
}

/// A push-to-start token ActivityKit issued for an attributes type (iOS 17.2+).
public struct PushToStartToken: Sendable, Equatable {
    public var attributesType: String
    public var token: Data

    public init(attributesType: String, token: Data) {
        self.attributesType = attributesType
        self.token = token
    }
}

/// What the server keeps with each token, so its doctor can explain a silent phone.
public struct DeviceFacts: Sendable, Equatable, Codable {
    /// `ActivityAuthorizationInfo().areActivitiesEnabled`.
    public var areActivitiesEnabled: Bool
    /// `ActivityAuthorizationInfo().frequentPushesEnabled`.
    public var frequentPushesEnabled: Bool
    /// e.g. "17.2".
    public var osVersion: String
    /// `CFBundleVersion`; nil when unknown.
    public var appBuild: String?

    public init(areActivitiesEnabled: Bool, frequentPushesEnabled: Bool, osVersion: String, appBuild: String?) {
        self.areActivitiesEnabled = areActivitiesEnabled
        self.frequentPushesEnabled = frequentPushesEnabled
        self.osVersion = osVersion
        self.appBuild = appBuild
    }

    /// A stable digest of the facts: the ledger compares it to know when to report them again.
    public var digest: String {
        let text = "\(areActivitiesEnabled)|\(frequentPushesEnabled)|\(osVersion)|\(appBuild ?? "")"
        return SHA256.hash(Array(text.utf8)).lowercaseHex
    }

    /// The running system's version, e.g. "17.4".
    public static var systemVersion: String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return "\(version.majorVersion).\(version.minorVersion)"
    }

    /// The app's build from its bundle.
    public static var bundleBuild: String? { Bundle.main.object(forInfoDictionaryKey: "CFBundleVersion") as? String }
}

/// The seam to ActivityKit: everything the sync observes on the phone and the one thing it does
/// there (end an activity the server says is over). `ActivityKitHost` is the real one; tests use an
/// in-memory host or the simulated iPhone.
///
/// Streams replay what is current when they are made (the running activities, the tokens already
/// issued) and then follow changes, so nothing issued before the sync started is missed.
public protocol LiveActivityHost: Sendable {
    /// Push-to-start tokens, per attributes type; finishes at once below iOS 17.2, which has none.
    func pushToStartTokens() -> AsyncStream<PushToStartToken>
    /// Activities as they start, from the app or by push.
    func activityStarts() -> AsyncStream<LiveActivitySnapshot>
    /// The activities the phone has now (not dismissed).
    func runningActivities() async -> [LiveActivitySnapshot]
    /// One activity's update token, current first, then every rotation.
    func pushTokens(localID: String) -> AsyncStream<Data>
    /// One activity's phase changes; finishes once it is dismissed.
    func phases(localID: String) -> AsyncStream<LiveActivityPhase>
    /// Ends an activity on the phone at once (the server says it is over).
    func endLocally(localID: String) async
    /// What the phone reports with each token.
    func deviceFacts() async -> DeviceFacts
    /// Requests the hidden placeholder (`PlaceholderStart`) and ends it at once with immediate dismissal.
    func startHiddenPlaceholder() async throws(PlaceholderError)
}

extension LiveActivityHost {
    /// A host without a placeholder says so.
    public func startHiddenPlaceholder() async throws(PlaceholderError) {
        throw PlaceholderError("this host has no placeholder: give ActivityKitHost a PlaceholderStart")
    }
}

/// The hidden placeholder's fixed identity, so the sync can tell it from the app's activities.
public enum PlaceholderActivity {
    /// The server activity id its attributes name; no server activity ever has it.
    public static let activityID = "droptrack-push-to-start-placeholder"
}

/// Why the placeholder could not be started, with what to do.
public struct PlaceholderError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// Whether an iOS version gives the push-to-start token, as ActivityKit behaves there.
public enum PushToStartAvailability: Sendable, Equatable {
    /// Below iOS 17: no push-to-start.
    case none
    /// iOS 17.x: the token is withheld until the app has requested an activity itself (ActivityKit 17.0
    /// and 17.1 have no push-to-start API at all, so there the placeholder brings nothing).
    case afterLocalRequest
    /// iOS 18 and later: the token comes without any activity.
    case given

    /// The availability for a version as `DeviceFacts.osVersion` spells it ("17.4", "18"); an
    /// unreadable one is taken as `.given`, so nothing is started on a guess.
    public init(osVersion: String) {
        let major = Int(osVersion.split(separator: ".").first ?? "") ?? 18
        self = major < 17 ? .none : major < 18 ? .afterLocalRequest : .given
    }
}
