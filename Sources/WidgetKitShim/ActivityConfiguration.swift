// A look-alike of the part of Apple's WidgetKit a Live Activity widget uses, for Linux, where WidgetKit
// does not exist. Never built on Apple platforms: sources import WidgetKit there, and Package.swift
// declares this target only when the manifest is read on Linux.
//
// Every public declaration here was written from the iOS 26.2 SDK's WidgetKit.swiftinterface (names,
// labels, generic requirements, isolation: `ActivityConfiguration` is main-actor isolated and the
// Dynamic Island types are not; conformances; iOS availability); checks/lookalike_api.py lists them
// (Tests/LookalikeAPI/WidgetKit.api) and compares them with Apple's file. `Widget`, `WidgetBundle`
// and `WidgetConfiguration` are SwiftUI's, so they live in the SwiftUI look-alike.
//
// What it simplifies, and why: nothing renders, so a configuration keeps its closures and a Dynamic
// Island its presentations for tests to call (the `package` members, which are not WidgetKit API), and
// `ActivityViewContext` has a `package` initializer where WidgetKit makes contexts itself. Only iOS
// availability is written.
import ActivityKitShim
import Foundation
import SwiftUICoreShim
import SwiftUIShim

/// An object that describes the content of a Live Activity.
@available(iOS 16.1, *)
@MainActor @preconcurrency
public struct ActivityConfiguration<Attributes>: WidgetConfiguration where Attributes: ActivityAttributes {
    /// The Lock Screen presentation, for tests.
    package let lockScreen: (ActivityViewContext<Attributes>) -> any View
    /// The Dynamic Island presentations, for tests.
    package let dynamicIsland: (ActivityViewContext<Attributes>) -> DynamicIsland

    /// Creates a configuration object for a Live Activity.
    @MainActor @preconcurrency
    public init<Content>(
        for attributesType: Attributes.Type,
        @ViewBuilder content: @escaping (ActivityViewContext<Attributes>) -> Content,
        dynamicIsland: @escaping (ActivityViewContext<Attributes>) -> DynamicIsland
    ) where Content: View {
        lockScreen = content
        self.dynamicIsland = dynamicIsland
    }

    /// The content and behavior of this widget configuration.
    @MainActor @preconcurrency
    public var body: some WidgetConfiguration { ConfiguredActivity() }
}

/// What a configuration's `body` is made of in the look-alike: WidgetKit's is opaque and private.
struct ConfiguredActivity: WidgetConfiguration {
    var body: Never { fatalError("look-alike: WidgetKit does not run on Linux") }
}

/// The view context for creating the views of a Live Activity.
@available(iOS 16.1, *)
public struct ActivityViewContext<Attributes> where Attributes: ActivityAttributes {
    /// A unique identifier for the Live Activity.
    public let activityID: String
    /// The attributes that describe the Live Activity at the time of its creation.
    public let attributes: Attributes
    /// The dynamic content of the Live Activity.
    public let state: Attributes.ContentState
    /// Whether the Live Activity is out of date.
    @available(iOS 16.2, *)
    public let isStale: Bool

    /// For tests: the context WidgetKit would hand the configuration's closures.
    package init(attributes: Attributes, state: Attributes.ContentState, isStale: Bool, activityID: String) {
        self.attributes = attributes
        self.state = state
        self.isStale = isStale
        self.activityID = activityID
    }
}

@available(iOS 14.0, *)
extension View {
    /// Sets the URL to open in the containing app when the person taps the widget.
    @MainActor @preconcurrency
    public func widgetURL(_ url: URL?) -> some View { lookAlikeModifier("widgetURL") }
}

@available(iOS 16.0, *)
extension View {
    /// Sets the tint color for the background of a Live Activity on the Lock Screen.
    @MainActor @preconcurrency
    public func activityBackgroundTint(_ color: Color?) -> some View { lookAlikeModifier("activityBackgroundTint") }
}

@available(iOS 16.1, *)
extension View {
    /// The text color of the auxiliary action button next to a Live Activity on the Lock Screen.
    @MainActor @preconcurrency
    public func activitySystemActionForegroundColor(_ color: Color?) -> some View {
        lookAlikeModifier("activitySystemActionForegroundColor")
    }
}
