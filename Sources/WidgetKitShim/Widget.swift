// A compile-only look-alike of the parts of Apple's WidgetKit a Live Activity widget uses, for Linux,
// where WidgetKit does not exist. Never built on Apple platforms: sources import WidgetKit there.
// Signatures and availability follow developer.apple.com/documentation/widgetkit.
import ActivityKitShim
import Foundation
import SwiftUIShim

/// The configuration and content of a widget to display on the Home Screen, Lock Screen or in the Dynamic Island.
@available(iOS 14.0, *)
@MainActor @preconcurrency
public protocol Widget {
    /// The type of configuration representing the content of the widget.
    associatedtype Body: WidgetConfiguration
    /// Creates a widget using `body` as its content.
    init()
    /// The content and behavior of the widget.
    @WidgetConfigurationBuilder var body: Self.Body { get }
}

/// A type that describes a widget's content.
@available(iOS 14.0, *)
@MainActor @preconcurrency
public protocol WidgetConfiguration {
    /// The type of widget configuration representing the body of this configuration.
    associatedtype Body: WidgetConfiguration
    /// The content and behavior of this widget configuration.
    @WidgetConfigurationBuilder var body: Self.Body { get }
}

@available(iOS 14.0, *)
extension Never: WidgetConfiguration {}

/// A custom attribute that constructs a widget's body.
@available(iOS 14.0, *)
@resultBuilder
public struct WidgetConfigurationBuilder {
    public static func buildExpression<Content>(_ content: Content) -> Content where Content: WidgetConfiguration {
        content
    }
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: WidgetConfiguration {
        content
    }
}

/// An object that describes the content of a Live Activity.
@available(iOS 16.1, *)
public struct ActivityConfiguration<Attributes> where Attributes: ActivityAttributes {
    /// The Lock Screen presentation, kept for a test-side renderer.
    package let lockScreen: (ActivityViewContext<Attributes>) -> any View
    /// The Dynamic Island presentations, kept for a test-side renderer.
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
}

@available(iOS 16.1, *)
extension ActivityConfiguration: WidgetConfiguration {
    public var body: Never { fatalError("look-alike: not for running") }
}

/// The view context for creating the views of a Live Activity.
@available(iOS 16.1, *)
public struct ActivityViewContext<Attributes> where Attributes: ActivityAttributes {
    /// The attributes that describe the Live Activity at the time of its creation.
    public let attributes: Attributes
    /// The dynamic content of the Live Activity.
    public let state: Attributes.ContentState
    /// Whether the Live Activity is out of date.
    @available(iOS 16.2, *)
    public let isStale: Bool
    /// A unique identifier for the Live Activity.
    public let activityID: String

    /// For a test-side renderer: the context WidgetKit would hand the configuration's closures.
    package init(attributes: Attributes, state: Attributes.ContentState, isStale: Bool, activityID: String) {
        self.attributes = attributes
        self.state = state
        self.isStale = isStale
        self.activityID = activityID
    }
}

@available(iOS 16.1, *)
extension View {
    /// Sets the tint color for the background of a Live Activity on the Lock Screen.
    public func activityBackgroundTint(_ color: Color?) -> some View { _modified(.other("activityBackgroundTint")) }

    /// The text color for the auxiliary action button that appears next to a Live Activity on the Lock Screen.
    public func activitySystemActionForegroundColor(_ color: Color?) -> some View {
        _modified(.other("activitySystemActionForegroundColor"))
    }
}
