// A look-alike of Apple's ActivityKit for Linux, where ActivityKit does not exist. Never built on Apple
// platforms: sources import ActivityKit there (`#if canImport(ActivityKit)`), and Package.swift declares
// this target only when the manifest is read on Linux.
//
// Every public declaration here was written from the iOS 26.2 SDK's ActivityKit.swiftinterface: the
// same names, labels, generic requirements, effects, conformances (Sendable included, and only where
// ActivityKit declares it) and iOS availability. checks/lookalike_api.py lists them
// (Tests/LookalikeAPI/ActivityKit.api) and compares them with Apple's file.
//
// What it simplifies, and why:
// - Only iOS availability is written: the other platforms' `unavailable` lines change nothing on Linux.
// - Only the API a Live Activity app calls is offered; the calls ActivityKit deprecated in 16.2
//   (`contentState`, `update(using:)`, `end(using:)`…) are left out, so new code cannot reach them.
// - Nothing reaches a system: `Activity` is an in-memory model (ActivityKit+Model.swift) and what only
//   the system does (tokens, remote starts, a scheduled start going live) is played by the `package`
//   hooks in ActivityKitShim+Simulation.swift, which are not ActivityKit API.
import Foundation

/// The protocol you implement to describe the content of a Live Activity.
@available(iOS 16.1, *)
public protocol ActivityAttributes: Decodable, Encodable {
    /// The dynamic content of a Live Activity, sent as `content-state`.
    associatedtype ContentState: Decodable, Encodable, Hashable
}

/// How a Live Activity stays on screen: until it ends, or only in the Dynamic Island and as a banner.
@available(iOS 16.1, *)
public enum ActivityStyle {
    /// Stays on the Lock Screen and in the Dynamic Island until it ends.
    case standard
    /// Shows in the Dynamic Island and as a banner, and leaves the Lock Screen when the phone locks.
    case transient
}

/// The state of a Live Activity in its life cycle.
@available(iOS 16.1, *)
public enum ActivityState: Sendable, Codable, Hashable {
    /// Scheduled to start at a later date (`request(…start:)`), not shown yet.
    @available(iOS 26.0, *)
    case pending
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
public struct ActivityContent<State> where State: Decodable, State: Encodable, State: Hashable {
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
}

// ActivityKit makes the content Sendable only when its state is.
@available(iOS 16.2, *)
extension ActivityContent: Sendable where State: Sendable {}

@available(iOS 16.2, *)
extension ActivityContent: CustomStringConvertible {
    /// The state, stale date and relevance score, for logs.
    public var description: String {
        "ActivityContent(state: \(state), staleDate: \(staleDate.map { "\($0)" } ?? "nil"), relevanceScore: \(relevanceScore))"
    }
}

/// Configures the alert that appears when you update a Live Activity.
@available(iOS 16.1, *)
public struct AlertConfiguration: Equatable, Sendable {
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

    /// The sound played with an update alert.
    public struct AlertSound: Equatable, Sendable {
        let name: String?

        /// The system's default alert sound.
        public static var `default`: AlertConfiguration.AlertSound { AlertSound(name: nil) }

        /// A custom sound from the app bundle.
        public static func named(_ name: String) -> AlertConfiguration.AlertSound { AlertSound(name: name) }
    }
}

/// When the system removes a Live Activity that ended.
@available(iOS 16.1, *)
public struct ActivityUIDismissalPolicy: Equatable, Sendable {
    enum Kind: Equatable {
        case standard
        case immediate
        case after(Date)
    }
    let kind: Kind

    /// Kept on the Lock Screen for up to four hours.
    public static let `default` = ActivityUIDismissalPolicy(kind: .standard)
    /// Removed at once.
    public static let immediate = ActivityUIDismissalPolicy(kind: .immediate)
    /// Removed at `date`, within four hours of ending.
    public static func after(_ date: Date) -> ActivityUIDismissalPolicy {
        ActivityUIDismissalPolicy(kind: .after(date))
    }
}

/// Constants that configure a Live Activity to receive ActivityKit push notifications.
@available(iOS 16.1, *)
public struct PushType: Equatable {
    enum Kind: Equatable {
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

/// Errors `Activity.request` throws.
@available(iOS 16.1, *)
public enum ActivityAuthorizationError: CustomNSError, LocalizedError {
    /// The domain of these errors as `NSError`s.
    public static var errorDomain: String { "com.apple.ActivityKit.ActivityAuthorizationError" }

    case attributesTooLarge
    case unsupported
    case denied
    case globalMaximumExceeded
    case targetMaximumExceeded
    case unsupportedTarget
    case visibility
    case persistenceFailure
    case missingProcessIdentifier
    case unentitled
    case malformedActivityIdentifier
    case reconnectNotPermitted

    /// The error's code as an `NSError`: its place in the list above.
    public var errorCode: Int {
        switch self {
        case .attributesTooLarge: 0
        case .unsupported: 1
        case .denied: 2
        case .globalMaximumExceeded: 3
        case .targetMaximumExceeded: 4
        case .unsupportedTarget: 5
        case .visibility: 6
        case .persistenceFailure: 7
        case .missingProcessIdentifier: 8
        case .unentitled: 9
        case .malformedActivityIdentifier: 10
        case .reconnectNotPermitted: 11
        }
    }

    /// Why the request failed (the look-alike names the case).
    public var failureReason: String? { "ActivityAuthorizationError.\(self)" }

    /// How to recover; the look-alike has none to offer.
    public var recoverySuggestion: String? { nil }
}
