// The view modifiers a Live Activity's views use, as SwiftUICore declares them: `nonisolated`, so they
// can be called from any isolation, each returning an opaque view (see View.swift for what the
// look-alike simplifies).
import Foundation

/// What every modifier returns in the look-alike: the view and the modifier's name, so tests can read a
/// view tree. SwiftUI's own modifier types are private, behind the same `some View`. Like SwiftUI's
/// `ModifiedContent`, it conforms to `View` in an extension, so making one is not main-actor isolated.
package struct ModifiedView<Content: View> {
    package let content: Content
    package let modifier: String
}

extension ModifiedView: View {
    package typealias Body = Never
}

@available(iOS 13.0, *)
extension View {
    /// Wraps the view in the look-alike's record of a modifier; other look-alikes' modifiers use it too.
    nonisolated package func lookAlikeModifier(_ name: String) -> ModifiedView<Self> {
        ModifiedView(content: self, modifier: name)
    }

    /// Sets the default font for text in this view.
    nonisolated public func font(_ font: Font?) -> some View { lookAlikeModifier("font") }

    /// Adds padding to the specified edges of this view.
    nonisolated public func padding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> some View {
        lookAlikeModifier("padding")
    }

    /// Adds a specific padding amount to each edge of this view.
    nonisolated public func padding(_ length: CGFloat) -> some View { lookAlikeModifier("padding") }

    /// Positions this view within an invisible frame with the specified size.
    nonisolated public func frame(width: CGFloat? = nil, height: CGFloat? = nil, alignment: Alignment = .center)
        -> some View
    {
        lookAlikeModifier("frame")
    }

    /// Sets the maximum number of lines that text can occupy in this view.
    nonisolated public func lineLimit(_ number: Int?) -> some View { lookAlikeModifier("lineLimit") }

    /// Sets the transparency of this view.
    nonisolated public func opacity(_ opacity: Double) -> some View { lookAlikeModifier("opacity") }
}

@available(iOS 15.0, *)
extension View {
    /// Sets a view's foreground elements to use a given style.
    nonisolated public func foregroundStyle<S>(_ style: S) -> some View where S: ShapeStyle {
        lookAlikeModifier("foregroundStyle")
    }

    /// Sets the tint color within this view.
    @_disfavoredOverload
    nonisolated public func tint(_ tint: Color?) -> some View { lookAlikeModifier("tint") }

    /// Modifies the fonts of all child views to use fixed-width digits.
    nonisolated public func monospacedDigit() -> some View { lookAlikeModifier("monospacedDigit") }
}

@available(iOS 16.0, *)
extension View {
    /// Sets the tint within this view.
    nonisolated public func tint<S>(_ tint: S?) -> some View where S: ShapeStyle { lookAlikeModifier("tint") }
}
