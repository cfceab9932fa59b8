// A look-alike of the part of Apple's SwiftUI a widget extension uses (`Widget`, `WidgetConfiguration`,
// `WidgetBundle` and its builder), for Linux, where SwiftUI does not exist. It re-exports the
// SwiftUICore look-alike, as SwiftUI re-exports SwiftUICore. Never built on Apple platforms: sources
// import SwiftUI there, and Package.swift declares this target only when the manifest is read on Linux.
//
// Every public declaration here was written from the iOS 26.2 SDK's SwiftUI.swiftinterface (names,
// labels, generic requirements, isolation, conformances, iOS availability); checks/lookalike_api.py
// lists them (Tests/LookalikeAPI/SwiftUI.api) and compares them with Apple's file. A widget's and a
// configuration's `body` take no result builder in SwiftUI, a bundle's does: `WidgetBundleBuilder`
// takes any number of widgets, and an `if #available` around the ones that need a newer iOS.
//
// What it simplifies, and why: the widget types the builder returns behind `some Widget` are
// internal here as in SwiftUI, and WidgetKit never instantiates them on Linux, so their `init()`
// stops the program; the `package` member lists a bundle's widgets for tests. Only iOS availability
// is written.
@_exported import SwiftUICoreShim

/// The configuration and content of a widget to display on the Home Screen, Lock Screen or in the
/// Dynamic Island.
@available(iOS 14.0, *)
@MainActor @preconcurrency
public protocol Widget {
    /// The type of configuration representing the content of the widget.
    associatedtype Body: WidgetConfiguration
    /// Creates a widget using `body` as its content.
    @MainActor @preconcurrency init()
    /// The content and behavior of the widget.
    @MainActor @preconcurrency var body: Self.Body { get }
}

/// A type that describes a widget's content.
@available(iOS 14.0, *)
@MainActor @preconcurrency
public protocol WidgetConfiguration {
    /// The type of widget configuration representing the body of this configuration.
    associatedtype Body: WidgetConfiguration
    /// The content and behavior of this widget configuration.
    @MainActor @preconcurrency var body: Self.Body { get }
}

@available(iOS 14.0, *)
extension Never: WidgetConfiguration {}

/// A container used to expose multiple widgets from a single widget extension.
@available(iOS 14.0, *)
@MainActor @preconcurrency
public protocol WidgetBundle {
    /// The type of widget that represents the content of the bundle.
    associatedtype Body: Widget
    /// Creates a widget bundle using the bundle's body as its content.
    @MainActor @preconcurrency init()
    /// Declares the group of widgets that a widget extension supports.
    @WidgetBundleBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

/// Marks the widgets an `if #available` produced in a `WidgetBundleBuilder`.
@available(iOS 14.0, *)
@_marker public protocol _LimitedAvailabilityWidgetMarker {}

/// A custom attribute that constructs a widget bundle's body.
@available(iOS 14.0, *)
@resultBuilder
public struct WidgetBundleBuilder {
    /// Passes a widget through unmodified.
    public static func buildExpression<Content>(_ content: Content) -> Content where Content: Widget { content }

    /// Builds an empty bundle.
    public static func buildBlock() -> some Widget { WidgetList(widgets: []) }

    /// Passes a single widget through unmodified.
    public static func buildBlock<Content>(_ content: Content) -> some Widget where Content: Widget {
        WidgetList(widgets: [content])
    }

    /// Combines the widgets of a block.
    @_disfavoredOverload
    public static func buildBlock<each C>(_ c: repeat each C) -> some Widget where repeat each C: Widget {
        var widgets: [any Widget] = []
        for widget in repeat each c { widgets.append(widget) }
        return WidgetList(widgets: widgets)
    }
}

@available(*, unavailable)
extension WidgetBundleBuilder: Sendable {}

@available(iOS 14.0, *)
extension WidgetBundleBuilder {
    /// The widgets of an `if #available` whose condition held, or none.
    public static func buildOptional(_ widget: (any Widget & _LimitedAvailabilityWidgetMarker)?) -> some Widget {
        WidgetList(widgets: widget.map { [$0] } ?? [])
    }

    @available(
        *, unavailable, message: "if statements in a WidgetBundleBuilder can only be used with #available clauses"
    )
    public static func buildOptional<W>(_ widget: W?) where W: Widget {}

    /// Marks the widgets inside an `if #available`.
    @available(iOS 16.1, *)
    public static func buildLimitedAvailability(_ widget: some Widget) -> any Widget & _LimitedAvailabilityWidgetMarker
    {
        LimitedAvailabilityWidget(widget: widget)
    }
}

/// The widgets a builder collected (SwiftUI's internal `TupleWidget` and empty bundle). It conforms to
/// `Widget` in an extension, so the builder, which is not main-actor isolated, can make one.
struct WidgetList {
    let widgets: [any Widget]
}

extension WidgetList: Widget {
    init() { fatalError("look-alike: WidgetKit does not run on Linux") }

    var body: Never { fatalError("look-alike: WidgetKit does not run on Linux") }
}

/// A widget an `if #available` produced (SwiftUI's internal `LimitedAvailabilityWidget`).
struct LimitedAvailabilityWidget {
    let widget: any Widget
}

extension LimitedAvailabilityWidget: Widget, _LimitedAvailabilityWidgetMarker {
    init() { fatalError("look-alike: WidgetKit does not run on Linux") }

    var body: Never { fatalError("look-alike: WidgetKit does not run on Linux") }
}

@available(iOS 14.0, *)
extension WidgetBundle {
    /// For tests: the widgets the bundle's body lists, in order, flattened.
    package var lookAlikeWidgets: [any Widget] { flatten(body) }
}

private func flatten(_ widget: any Widget) -> [any Widget] {
    switch widget {
    case let list as WidgetList: list.widgets.flatMap(flatten)
    case let limited as LimitedAvailabilityWidget: flatten(limited.widget)
    default: [widget]
    }
}
