import Foundation
import SwiftUIShim

/// The layout and configuration for a Live Activity that appears in the Dynamic Island.
@available(iOS 16.1, *)
public struct DynamicIsland {
    /// The expanded presentation, kept for a test-side renderer.
    package let expanded: () -> any View
    /// The regions the expanded presentation fills, in order.
    package let expandedPositions: () -> [DynamicIslandExpandedRegionPosition]
    package let compactLeading: () -> any View
    package let compactTrailing: () -> any View
    package let minimal: () -> any View
    package var keylineTintColor: Color?
    package var url: URL?

    /// Creates a configuration object with views that appear in the Dynamic Island.
    public init<Expanded, CompactLeading, CompactTrailing, Minimal>(
        @DynamicIslandExpandedContentBuilder expanded: @escaping () -> DynamicIslandExpandedContent<Expanded>,
        @ViewBuilder compactLeading: @escaping () -> CompactLeading,
        @ViewBuilder compactTrailing: @escaping () -> CompactTrailing,
        @ViewBuilder minimal: @escaping () -> Minimal
    ) where Expanded: View, CompactLeading: View, CompactTrailing: View, Minimal: View {
        self.expanded = { expanded().content }
        expandedPositions = { expanded().positions }
        self.compactLeading = compactLeading
        self.compactTrailing = compactTrailing
        self.minimal = minimal
    }

    /// Applies a subtle tint color to the border of a Live Activity in the Dynamic Island.
    public func keylineTint(_ color: Color?) -> DynamicIsland {
        var copy = self
        copy.keylineTintColor = color
        return copy
    }

    /// Sets the URL that opens the app when a person taps the Live Activity.
    public func widgetURL(_ url: URL?) -> DynamicIsland {
        var copy = self
        copy.url = url
        return copy
    }
}

/// View positions of an expanded Live Activity in the Dynamic Island.
@available(iOS 16.1, *)
public struct DynamicIslandExpandedRegionPosition: Equatable, Sendable {
    let name: String
    /// Along the leading edge, next to the TrueDepth camera.
    public static let leading = DynamicIslandExpandedRegionPosition(name: "leading")
    /// Along the trailing edge, next to the TrueDepth camera.
    public static let trailing = DynamicIslandExpandedRegionPosition(name: "trailing")
    /// Right below the TrueDepth camera.
    public static let center = DynamicIslandExpandedRegionPosition(name: "center")
    /// Below the leading, trailing and center content.
    public static let bottom = DynamicIslandExpandedRegionPosition(name: "bottom")
}

/// Defines and positions the content of an expanded Live Activity in the Dynamic Island.
@available(iOS 16.1, *)
public struct DynamicIslandExpandedRegion<Content> where Content: View {
    let position: DynamicIslandExpandedRegionPosition
    let priority: Double
    let content: Content

    /// Creates the object that defines and positions the content of an expanded Live Activity.
    public init(
        _ position: DynamicIslandExpandedRegionPosition, priority: Double = 0, @ViewBuilder content: () -> Content
    ) {
        self.position = position
        self.priority = priority
        self.content = content()
    }
}

/// The expanded presentation of a Live Activity in the Dynamic Island.
@available(iOS 16.1, *)
public struct DynamicIslandExpandedContent<Content> where Content: View {
    let content: Content
    let positions: [DynamicIslandExpandedRegionPosition]
}

/// A result builder that constructs the content of an expanded Live Activity in the Dynamic Island.
@available(iOS 16.1, *)
@resultBuilder
public struct DynamicIslandExpandedContentBuilder {
    public static func buildPartialBlock<C>(first: DynamicIslandExpandedRegion<C>) -> DynamicIslandExpandedContent<
        some View
    > {
        DynamicIslandExpandedContent(content: first.content, positions: [first.position])
    }

    public static func buildPartialBlock<C>(first: DynamicIslandExpandedContent<C>) -> DynamicIslandExpandedContent<
        some View
    > {
        first
    }

    public static func buildPartialBlock<C0, C1>(
        accumulated: DynamicIslandExpandedContent<C0>, next: DynamicIslandExpandedRegion<C1>
    ) -> DynamicIslandExpandedContent<some View> {
        DynamicIslandExpandedContent(
            content: TupleView((accumulated.content, next.content)), positions: accumulated.positions + [next.position])
    }

    public static func buildPartialBlock<C0, C1>(
        accumulated: DynamicIslandExpandedContent<C0>, next: DynamicIslandExpandedContent<C1>
    ) -> DynamicIslandExpandedContent<some View> {
        DynamicIslandExpandedContent(
            content: TupleView((accumulated.content, next.content)), positions: accumulated.positions + next.positions)
    }
}
