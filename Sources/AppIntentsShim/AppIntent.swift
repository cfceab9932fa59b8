// A look-alike of the part of Apple's App Intents that an interactive Live Activity uses (`AppIntent`,
// `LiveActivityIntent`, `@Parameter`, `IntentResult`), for Linux, where App Intents does not exist.
// Never built on Apple platforms: sources import AppIntents there, and Package.swift declares this
// target only when the manifest is read on Linux.
//
// Every public declaration here was written from the iOS 26.2 SDK's AppIntents.swiftinterface (names,
// labels, generic requirements, conformances, iOS availability); checks/lookalike_api.py lists them
// (Tests/LookalikeAPI/AppIntents.api) and compares them with Apple's file.
//
// What it simplifies, and why:
// - Protocols carry only the requirements a Live Activity's intent meets (no parameter summaries,
//   resolvers, dialogs or snippets): those are for Shortcuts and Siri, which do not exist here.
// - Nothing runs an intent: on a phone the system calls `perform()` in the app's process when the
//   button is tapped; on Linux a test or the simulated iPhone calls it.
// - `LocalizedStringResource` is Foundation's on iOS; here it comes from the ActivityKit look-alike.
// - Only iOS availability is written.
import ActivityKitShim
import Foundation

/// A type that can provide a stable identifier for the system to use.
@available(iOS 16.0, *)
public protocol PersistentlyIdentifiable {
    /// The identifier; by default the type's name.
    static var persistentIdentifier: String { get }
}

@available(iOS 16.0, *)
extension PersistentlyIdentifiable {
    public static var persistentIdentifier: String { String(describing: Self.self) }
}

/// A type whose members can declare app dependencies (App Intents' marker).
@available(iOS 16.0, *)
public protocol _SupportsAppDependencies {}

/// An interface for providing an app-specific capability that people invoke from system experiences,
/// such as a button in a Live Activity.
@available(iOS 16.0, *)
@_alwaysEmitConformanceMetadata
public protocol AppIntent: PersistentlyIdentifiable, _SupportsAppDependencies, Sendable {
    /// The result `perform()` gives.
    associatedtype PerformResult: IntentResult
    /// A short, localized, human-readable string that describes the intent.
    static var title: LocalizedStringResource { get }
    /// Whether the system shows the intent in Shortcuts and Spotlight.
    @available(iOS 17.0, *)
    static var isDiscoverable: Bool { get }
    /// Does the intent's work.
    func perform() async throws -> Self.PerformResult
    /// Creates an intent with its parameters unset (the system sets them from the stored values).
    init()
}

@available(iOS 16.0, *)
extension AppIntent {
    /// The property wrapper of an intent's parameters: `@Parameter(title: "…") var name: String`.
    public typealias Parameter = IntentParameter
}

@available(iOS 16.0, *)
extension AppIntent {
    @available(iOS 17.0, *)
    public static var isDiscoverable: Bool { true }
}

/// An intent the system runs on its own terms (App Intents' base of the system's intent kinds).
@available(iOS 16.0, *)
public protocol SystemIntent: AppIntent {}

/// An intent that starts, updates or ends a Live Activity: run in the app's process, even when a
/// button in the Live Activity (a widget extension's view) triggers it.
@available(iOS 17.0, *)
public protocol LiveActivityIntent: SystemIntent {}
