// A compile-only look-alike of the parts of Apple's SwiftUI a Live Activity widget uses, for Linux,
// where SwiftUI does not exist. Never built on Apple platforms: sources import SwiftUI there.
// Signatures and availability follow developer.apple.com/documentation/swiftui. Nothing renders:
// a primitive view's `body` stops the program.
import Foundation

/// A type that represents part of your app's user interface.
@available(iOS 13.0, *)
@MainActor @preconcurrency
public protocol View {
    /// The type of view representing the body of this view.
    associatedtype Body: View
    /// The content and behavior of the view.
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

/// What a primitive view's `body` does in the look-alike.
func lookAlikeBody() -> Never { fatalError("look-alike: not for running") }

@available(iOS 13.0, *)
extension Never: View {
    public typealias Body = Never
    public var body: Never { lookAlikeBody() }
}

/// A view that doesn't contain any content.
@available(iOS 13.0, *)
public struct EmptyView: Sendable {
    public init() {}
}
extension EmptyView: View { public var body: Never { lookAlikeBody() } }

/// A view created from a swift tuple of view values.
@available(iOS 13.0, *)
public struct TupleView<T> {
    public var value: T
    public init(_ value: T) { self.value = value }
}
extension TupleView: View { public var body: Never { lookAlikeBody() } }

/// View content that shows one of two possible children.
@available(iOS 13.0, *)
public struct _ConditionalContent<TrueContent, FalseContent> {
    enum Storage {
        case trueContent(TrueContent)
        case falseContent(FalseContent)
    }
    let storage: Storage
}
extension _ConditionalContent: View where TrueContent: View, FalseContent: View {
    public var body: Never { lookAlikeBody() }
}

@available(iOS 13.0, *)
extension Optional: View where Wrapped: View {
    public var body: Never { lookAlikeBody() }
}

/// A type-erased view.
@available(iOS 13.0, *)
public struct AnyView {
    let view: any View
    public init<V>(_ view: V) where V: View { self.view = view }
}
extension AnyView: View { public var body: Never { lookAlikeBody() } }

/// A custom parameter attribute that constructs views from closures.
@available(iOS 13.0, *)
@resultBuilder
public struct ViewBuilder {
    public static func buildExpression<Content>(_ content: Content) -> Content where Content: View { content }
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: View { content }
    @available(iOS 17.0, *)
    public static func buildBlock<each Content>(_ content: repeat each Content) -> TupleView<(repeat each Content)>
    where repeat each Content: View { TupleView((repeat each content)) }
    public static func buildIf<Content>(_ content: Content?) -> Content? where Content: View { content }
    public static func buildEither<TrueContent, FalseContent>(first: TrueContent) -> _ConditionalContent<
        TrueContent, FalseContent
    > where TrueContent: View, FalseContent: View { _ConditionalContent(storage: .trueContent(first)) }
    public static func buildEither<TrueContent, FalseContent>(second: FalseContent) -> _ConditionalContent<
        TrueContent, FalseContent
    > where TrueContent: View, FalseContent: View { _ConditionalContent(storage: .falseContent(second)) }
    @available(iOS 14.0, *)
    public static func buildLimitedAvailability<Content>(_ content: Content) -> AnyView where Content: View {
        AnyView(content)
    }
}

/// A view with a modifier applied; what every modifier in the look-alike returns.
@available(iOS 13.0, *)
public struct ModifiedContent<Content, Modifier> {
    public var content: Content
    public var modifier: Modifier
    public init(content: Content, modifier: Modifier) {
        self.content = content
        self.modifier = modifier
    }
}
extension ModifiedContent: View where Content: View { public var body: Never { lookAlikeBody() } }

/// The modifiers the look-alike records (SwiftUI's own modifier types are private).
public enum _LookAlikeModifier: Sendable {
    case font(Font?)
    case foregroundStyle(String)
    case padding(Edge.Set, CGFloat?)
    case frame(width: CGFloat?, height: CGFloat?, Alignment)
    case lineLimit(Int?)
    case tint(Color?)
    case other(String)
}

@available(iOS 13.0, *)
extension View {
    /// Applies the modifier the look-alike records.
    package func _modified(_ modifier: _LookAlikeModifier) -> ModifiedContent<Self, _LookAlikeModifier> {
        ModifiedContent(content: self, modifier: modifier)
    }

    /// Sets the default font for text in this view.
    public func font(_ font: Font?) -> some View { _modified(.font(font)) }

    /// Sets a view's foreground elements to use a given style.
    @available(iOS 15.0, *)
    public func foregroundStyle<S>(_ style: S) -> some View where S: ShapeStyle {
        _modified(.foregroundStyle(String(describing: style)))
    }

    /// Adds padding to the specified edges of this view.
    public func padding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> some View {
        _modified(.padding(edges, length))
    }

    /// Adds padding of the given length to all edges of this view.
    public func padding(_ length: CGFloat) -> some View { _modified(.padding(.all, length)) }

    /// Positions this view within an invisible frame with the specified size.
    public func frame(width: CGFloat? = nil, height: CGFloat? = nil, alignment: Alignment = .center) -> some View {
        _modified(.frame(width: width, height: height, alignment))
    }

    /// Sets the maximum number of lines that text can occupy in this view.
    public func lineLimit(_ number: Int?) -> some View { _modified(.lineLimit(number)) }

    /// Sets the tint color within this view.
    @available(iOS 15.0, *)
    public func tint(_ tint: Color?) -> some View { _modified(.tint(tint)) }
}
