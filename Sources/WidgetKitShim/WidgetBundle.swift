// Look-alike of WidgetKit's widget bundle (compile-only, Linux only; see Widget.swift): the widget
// extension's entry point that lists its widgets, Live Activities among them.
import SwiftUIShim

/// A container used to expose multiple widgets from a single widget extension.
@available(iOS 14.0, *)
@MainActor @preconcurrency
public protocol WidgetBundle {
    /// The type of widget that represents the content of the bundle.
    associatedtype Body: Widget
    /// Creates a widget bundle using the bundle's body as its content.
    init()
    /// Declares the group of widgets that a widget extension supports.
    @WidgetBundleBuilder var body: Self.Body { get }
}

/// A custom attribute that constructs a widget bundle's body.
@available(iOS 14.0, *)
@resultBuilder
public struct WidgetBundleBuilder {
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: Widget { content }
}
