// WidgetKit's Dynamic Island presentations (see ActivityConfiguration.swift for what the look-alike
// simplifies). The expanded region positions are not `Equatable` in WidgetKit, so the look-alike keeps
// their names for tests instead. WidgetKit's modes and positions are not `Sendable` and it was built in
// Swift 5 mode, where their `static let`s need no marking; in this Swift 6 module they are
// `nonisolated(unsafe)`, which a caller cannot tell apart (they are immutable).
import Foundation
import SwiftUICoreShim

/// The layout and configuration for a Live Activity that appears in the Dynamic Island.
@available(iOS 16.1, *)
public struct DynamicIsland {
    /// The expanded presentation, for tests.
    package let expanded: () -> any View
    /// The positions of the regions the expanded presentation fills, in order, for tests.
    package let expandedPositions: () -> [String]
    package let compactLeading: () -> any View
    package let compactTrailing: () -> any View
    package let minimal: () -> any View
    package var keylineTintColor: Color?
    package var url: URL?
    /// The margins set with `contentMargins(_:_:for:)`, for tests.
    package var margins: [(edges: Edge.Set, length: Double, mode: DynamicIslandMode)] = []

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

    /// Sets the URL that opens the app when a person taps the Live Activity.
    public func widgetURL(_ url: URL?) -> DynamicIsland {
        var copy = self
        copy.url = url
        return copy
    }

    /// Applies a subtle tint color to the border of a Live Activity in the Dynamic Island.
    public func keylineTint(_ color: Color?) -> DynamicIsland {
        var copy = self
        copy.keylineTintColor = color
        return copy
    }

    /// Sets the margins of the Dynamic Island's content in the given presentation.
    public func contentMargins(_ edges: Edge.Set = .all, _ length: Double, for mode: DynamicIslandMode) -> DynamicIsland
    {
        var copy = self
        copy.margins.append((edges, length, mode))
        return copy
    }
}

/// The presentations of a Live Activity in the Dynamic Island.
@available(iOS 16.1, *)
public struct DynamicIslandMode: Equatable {
    let name: String
    /// The expanded presentation.
    nonisolated(unsafe) public static let expanded = DynamicIslandMode(name: "expanded")
    /// The leading side of the compact presentation.
    nonisolated(unsafe) public static let compactLeading = DynamicIslandMode(name: "compactLeading")
    /// The trailing side of the compact presentation.
    nonisolated(unsafe) public static let compactTrailing = DynamicIslandMode(name: "compactTrailing")
    /// The minimal presentation.
    nonisolated(unsafe) public static let minimal = DynamicIslandMode(name: "minimal")
}

/// View positions of an expanded Live Activity in the Dynamic Island.
@available(iOS 16.1, *)
public struct DynamicIslandExpandedRegionPosition {
    let name: String
    /// Along the leading edge, next to the TrueDepth camera.
    nonisolated(unsafe) public static let leading = DynamicIslandExpandedRegionPosition(name: "leading")
    /// Along the trailing edge, next to the TrueDepth camera.
    nonisolated(unsafe) public static let trailing = DynamicIslandExpandedRegionPosition(name: "trailing")
    /// Right below the TrueDepth camera.
    nonisolated(unsafe) public static let center = DynamicIslandExpandedRegionPosition(name: "center")
    /// Below the leading, trailing and center content.
    nonisolated(unsafe) public static let bottom = DynamicIslandExpandedRegionPosition(name: "bottom")
}

/// Defines and positions the content of an expanded Live Activity in the Dynamic Island.
@available(iOS 16.1, *)
public struct DynamicIslandExpandedRegion<Content> where Content: View {
    let position: DynamicIslandExpandedRegionPosition
    let priority: Double
    let content: Content
    var margins: [(edges: Edge.Set, length: Double)] = []

    /// Creates the object that defines and positions the content of an expanded Live Activity.
    public init(
        _ position: DynamicIslandExpandedRegionPosition, priority: Double = 0, @ViewBuilder content: () -> Content
    ) {
        self.position = position
        self.priority = priority
        self.content = content()
    }

    /// The region's content, as the expanded presentation shows it.
    public var _viewRepresentation: some View { RegionView(content: content, position: position.name) }

    /// Sets the margins of the region's content.
    public func contentMargins(_ edges: Edge.Set = .all, _ length: Double) -> DynamicIslandExpandedRegion<Content> {
        var copy = self
        copy.margins.append((edges, length))
        return copy
    }
}

/// The expanded presentation of a Live Activity in the Dynamic Island.
@available(iOS 16.1, *)
public struct DynamicIslandExpandedContent<Content> where Content: View {
    let content: Content
    let positions: [String]
}

/// A result builder that constructs the content of an expanded Live Activity in the Dynamic Island.
@available(iOS 16.1, *)
@resultBuilder
public struct DynamicIslandExpandedContentBuilder {
    public static func buildPartialBlock<C>(
        first: DynamicIslandExpandedRegion<C>
    ) -> DynamicIslandExpandedContent<some View> where C: View {
        DynamicIslandExpandedContent(content: first._viewRepresentation, positions: [first.position.name])
    }

    public static func buildPartialBlock<C>(
        first: DynamicIslandExpandedContent<C>
    ) -> DynamicIslandExpandedContent<some View> where C: View {
        first
    }

    public static func buildPartialBlock<C0, C1>(
        accumulated: DynamicIslandExpandedContent<C0>, next: DynamicIslandExpandedRegion<C1>
    ) -> DynamicIslandExpandedContent<some View> where C0: View, C1: View {
        DynamicIslandExpandedContent(
            content: RegionPair(first: accumulated.content, second: next._viewRepresentation),
            positions: accumulated.positions + [next.position.name])
    }

    public static func buildPartialBlock<C0, C1>(
        accumulated: DynamicIslandExpandedContent<C0>, next: DynamicIslandExpandedContent<C1>
    ) -> DynamicIslandExpandedContent<some View> where C0: View, C1: View {
        DynamicIslandExpandedContent(
            content: RegionPair(first: accumulated.content, second: next.content),
            positions: accumulated.positions + next.positions)
    }
}

/// One expanded region's content (WidgetKit's own region view is private).
struct RegionView<Content: View> {
    let content: Content
    let position: String
}

extension RegionView: View {
    typealias Body = Never
}

/// Two pieces of the expanded presentation, one after the other.
struct RegionPair<First: View, Second: View> {
    let first: First
    let second: Second
}

extension RegionPair: View {
    typealias Body = Never
}
