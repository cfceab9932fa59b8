// The stacks, spacers, images and `ForEach`, as SwiftUICore declares them (see View.swift for what the
// look-alike simplifies). The stacks conform to `View` where they are declared, so they are
// main-actor isolated, as in SwiftUICore; `Spacer` and `Image` conform in an extension and are not.
import Foundation

/// A view that arranges its subviews in a horizontal line.
@available(iOS 13.0, *)
public struct HStack<Content>: View where Content: View {
    /// The stacked views, for tests that read a view tree.
    package let content: Content

    /// Creates a horizontal stack with the given spacing and vertical alignment.
    public init(alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {
        self.content = content()
    }

    public typealias Body = Never
}

@available(*, unavailable)
extension HStack: Sendable {}

/// A view that arranges its subviews in a vertical line.
@available(iOS 13.0, *)
public struct VStack<Content>: View where Content: View {
    /// The stacked views, for tests that read a view tree.
    package let content: Content

    /// Creates an instance with the given spacing and horizontal alignment.
    public init(
        alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content
    ) {
        self.content = content()
    }

    public typealias Body = Never
}

@available(*, unavailable)
extension VStack: Sendable {}

/// A flexible space that expands along the major axis of its containing stack layout.
@available(iOS 13.0, *)
public struct Spacer {
    /// The minimum length this spacer can be shrunk to, along the axis of expansion.
    public var minLength: CGFloat?

    public init(minLength: CGFloat? = nil) { self.minLength = minLength }

    public typealias Body = Never
}

@available(iOS 13.0, *)
extension Spacer: View {}

@available(iOS 13.0, *)
extension Spacer: Sendable {}

/// A view that displays an image.
@available(iOS 13.0, *)
public struct Image: Equatable, Sendable {
    /// The SF Symbol's name, for tests that read a view tree.
    package let systemName: String

    /// Creates a system symbol image.
    public init(systemName: String) { self.systemName = systemName }
}

@available(iOS 13.0, *)
extension Image: View {
    public typealias Body = Never
}

/// A structure that computes views on demand from an underlying collection of identified data.
@available(iOS 13.0, *)
public struct ForEach<Data, ID, Content> where Data: RandomAccessCollection, ID: Hashable {
    /// The collection of underlying identified data that SwiftUI uses to create views dynamically.
    public var data: Data
    /// A function to create content on demand using the underlying data.
    public var content: (Data.Element) -> Content
}

@available(iOS 13.0, *)
extension ForEach: View where Content: View {
    public typealias Body = Never
}

@available(*, unavailable)
extension ForEach: Sendable {}

@available(iOS 13.0, *)
extension ForEach where Content: View {
    /// Creates an instance that computes views on demand over a collection, identified by a key path.
    public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content)
    {
        self.data = data
        self.content = content
    }
}

@available(iOS 13.0, *)
extension ForEach where Data == Range<Int>, ID == Int, Content: View {
    /// Creates an instance that computes views on demand over a given constant range.
    public init(_ data: Range<Int>, @ViewBuilder content: @escaping (Int) -> Content) {
        self.data = data
        self.content = content
    }
}

@available(iOS 13.0, *)
extension ForEach where ID == Data.Element.ID, Content: View, Data.Element: Identifiable {
    /// Creates an instance that computes views on demand over a collection of identifiable data.
    public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content) {
        self.data = data
        self.content = content
    }
}
