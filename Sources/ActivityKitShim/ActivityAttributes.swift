// A compile-only look-alike of the parts of Apple's ActivityKit a Live Activity app uses, for Linux,
// where ActivityKit does not exist. Never built on Apple platforms: sources import ActivityKit there.
// Signatures and availability follow developer.apple.com/documentation/activitykit.
import Foundation

/// The protocol you implement to describe the content of a Live Activity.
///
/// Server code needs exactly this: `Codable` attributes with a `Codable & Hashable` `ContentState`.
@available(iOS 16.1, *)
public protocol ActivityAttributes: Decodable, Encodable {
    /// The dynamic content of a Live Activity, sent as `content-state`.
    associatedtype ContentState: Decodable, Encodable, Hashable
}

/// The state of a Live Activity in its life cycle.
@available(iOS 16.1, *)
public enum ActivityState: Equatable, Hashable, Sendable, Codable {
    /// Active, visible, and can receive content updates.
    case active
    /// Ended and still visible; it won't update its content anymore.
    case ended
    /// Ended and no longer visible.
    case dismissed
    /// Its content is out of date and needs an update.
    @available(iOS 16.2, *)
    case stale
}

/// Describes the state and configuration of a Live Activity.
@available(iOS 16.2, *)
public struct ActivityContent<State>: Equatable, Hashable
where State: Decodable, State: Encodable, State: Hashable {
    /// The dynamic content.
    public let state: State
    /// When the system considers the Live Activity out of date.
    public let staleDate: Date?
    /// Orders several Live Activities of one app.
    public let relevanceScore: Double

    /// Creates the object that describes the state and configuration of a Live Activity.
    public init(state: State, staleDate: Date?, relevanceScore: Double = 0.0) {
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.state == rhs.state && lhs.staleDate == rhs.staleDate && lhs.relevanceScore == rhs.relevanceScore
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(state)
        hasher.combine(staleDate)
        hasher.combine(relevanceScore)
    }
}

// `ActivityContent` is `Sendable` in ActivityKit whatever its state; the look-alike says the same.
extension ActivityContent: @unchecked Sendable {}

/// Constants that configure a Live Activity to receive ActivityKit push notifications.
@available(iOS 16.1, *)
public struct PushType: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case token
        case channel(String)
    }
    let kind: Kind

    /// Updates arrive by ActivityKit push notifications sent to the activity's push token.
    public static var token: PushType { PushType(kind: .token) }

    /// Updates arrive by broadcast push notifications on a channel (base64 channel ID).
    @available(iOS 18.0, *)
    public static func channel(_ name: String) -> PushType { PushType(kind: .channel(name)) }
}

/// When the system removes a Live Activity that ended.
@available(iOS 16.1, *)
public struct ActivityUIDismissalPolicy: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case `default`
        case immediate
        case after(Date)
    }
    let kind: Kind

    /// Kept on the Lock Screen for up to four hours.
    public static let `default` = ActivityUIDismissalPolicy(kind: .default)
    /// Removed at once.
    public static let immediate = ActivityUIDismissalPolicy(kind: .immediate)
    /// Removed at `date`, within four hours of ending.
    public static func after(_ date: Date) -> ActivityUIDismissalPolicy {
        ActivityUIDismissalPolicy(kind: .after(date))
    }
}

/// Foundation's `LocalizedStringResource`, absent from Foundation on Linux; only what
/// `AlertConfiguration` needs (a string literal).
public struct LocalizedStringResource: ExpressibleByStringLiteral, Equatable, Hashable, Sendable {
    /// The key, which is also the untranslated text.
    public let key: String

    public init(stringLiteral value: String) { key = value }
}

/// Configures the alert that appears when you update a Live Activity.
@available(iOS 16.1, *)
public struct AlertConfiguration: Sendable {
    /// The sound played with an update alert.
    public struct AlertSound: Equatable, Sendable {
        let name: String?
        /// The system's default alert sound.
        public static var `default`: AlertConfiguration.AlertSound { AlertSound(name: nil) }
        /// A custom sound from the app bundle.
        public static func named(_ name: String) -> AlertConfiguration.AlertSound { AlertSound(name: name) }
    }

    /// A short title (shown on Apple Watch).
    public var title: LocalizedStringResource
    /// The alert's main text (shown on Apple Watch).
    public var body: LocalizedStringResource
    /// The sound played when the alert appears.
    public var sound: AlertConfiguration.AlertSound

    /// Initializes a new alert configuration for a Live Activity update.
    public init(title: LocalizedStringResource, body: LocalizedStringResource, sound: AlertConfiguration.AlertSound) {
        self.title = title
        self.body = body
        self.sound = sound
    }
}

/// Errors `Activity.request` throws.
@available(iOS 16.1, *)
public enum ActivityAuthorizationError: Error, Equatable, Sendable {
    case attributesTooLarge
    case denied
    case globalMaximumExceeded
    case malformedActivityIdentifier
    case missingProcessIdentifier
    case persistenceFailure
    case reconnectNotPermitted
    case targetMaximumExceeded
    case unentitled
    case unsupported
    case unsupportedTarget
    case visibility
}
