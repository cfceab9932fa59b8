// A look-alike of Apple's SwiftUICore for Linux, where SwiftUI does not exist: the module that holds
// `View`, `Text`, the stacks, `Color` and `Font` since iOS 18 (SwiftUI re-exports it, and so does the
// SwiftUI look-alike). Never built on Apple platforms: sources import SwiftUI there, and Package.swift
// declares this target only when the manifest is read on Linux.
//
// Every public declaration here was written from the iOS 26.2 SDK's SwiftUICore.swiftinterface: the
// same names, labels, generic requirements, isolation (`View` is main-actor isolated; its modifiers
// are `nonisolated`; a type that conforms to `View` where it is declared is main-actor isolated, one
// that conforms in an extension is not), conformances (`Sendable` only where SwiftUICore says so)
// and iOS availability. checks/lookalike_api.py lists them (Tests/LookalikeAPI/SwiftUICore.api) and
// compares them with Apple's file.
//
// What it simplifies, and why:
// - Nothing renders. A primitive view's `body` is the one `View where Body == Never` default below,
//   which stops the program; SwiftUI gives its primitives a body no public declaration shows.
// - `ShapeStyle` has no requirements: SwiftUI's are underscored rendering hooks.
// - `TupleView.value` is not main-actor isolated (SwiftUICore's is): SwiftUI's builders are inlined
//   into the caller, the look-alike's are compiled here in Swift 6 and are not isolated.
// - Only what a Live Activity's views use is offered, and only iOS availability is written.
// - The `package` members record what a view was made of (a text's content, a modifier), so tests
//   can read a view tree; they are not SwiftUI API.
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

@available(iOS 13.0, *)
extension View where Body == Never {
    /// A primitive view's body: the look-alike renders nothing, so asking for it stops the program.
    public var body: Never { fatalError("look-alike: \(Self.self) is a primitive view; nothing renders on Linux") }
}

@available(iOS 13.0, *)
extension Never: View {
    // SwiftUICore's interface shows no `Body` here; it reaches `Never` by another of its conformances.
    public typealias Body = Never
}

@available(iOS 13.0, *)
extension Optional: View where Wrapped: View {
    public typealias Body = Never
}

/// A view that doesn't contain any content.
@available(iOS 13.0, *)
public struct EmptyView: View {
    public init() {}
    /// The builder's way in: it is not main-actor isolated, the public initializer is.
    nonisolated init(building: Void) {}
    public typealias Body = Never
}

@available(iOS 13.0, *)
extension EmptyView: Sendable {}

/// A view created from a swift tuple of view values.
@available(iOS 13.0, *)
public struct TupleView<T>: View {
    /// SwiftUICore's is main-actor isolated; here it is not, so the builder, which is not main-actor
    /// isolated and is compiled here rather than in the caller as SwiftUI's is, can make a tuple view.
    public nonisolated(unsafe) var value: T
    public init(_ value: T) { self.value = value }
    /// The builder's way in: it is not main-actor isolated, the public initializer is.
    nonisolated init(building value: T) { self.value = value }
    public typealias Body = Never
}

@available(*, unavailable)
extension TupleView: Sendable {}

/// View content that shows one of two possible children.
@available(iOS 13.0, *)
public struct _ConditionalContent<TrueContent, FalseContent> {
    enum Storage {
        case trueContent(TrueContent)
        case falseContent(FalseContent)
    }
    let storage: Storage
}

@available(iOS 13.0, *)
extension _ConditionalContent: View where TrueContent: View, FalseContent: View {
    public typealias Body = Never
}

@available(*, unavailable)
extension _ConditionalContent: Sendable {}

/// A type-erased view.
@available(iOS 13.0, *)
public struct AnyView: View {
    /// The view it erases, for tests that read a view tree.
    package nonisolated(unsafe) let erased: any View

    /// Creates an instance that type-erases `view`.
    public init<V>(_ view: V) where V: View { erased = view }

    /// Creates an instance that type-erases `view`.
    public init<V>(erasing view: V) where V: View { erased = view }

    /// The builder's way in: it is not main-actor isolated, the public initializers are.
    nonisolated init<V>(building view: V) where V: View { erased = view }

    public typealias Body = Never
}

@available(*, unavailable)
extension AnyView: Sendable {}

/// A custom parameter attribute that constructs views from closures.
@available(iOS 13.0, *)
@resultBuilder
public struct ViewBuilder {
    /// Passes a single view written as a child view through unmodified.
    public static func buildExpression<Content>(_ content: Content) -> Content where Content: View { content }

    /// Builds an empty view from a block containing no statements.
    public static func buildBlock() -> EmptyView { EmptyView(building: ()) }

    /// Passes a single view written as a child view through unmodified.
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: View { content }

    /// Combines the views of a block into one.
    @_disfavoredOverload
    public static func buildBlock<each Content>(_ content: repeat each Content) -> TupleView<(repeat each Content)>
    where repeat each Content: View { TupleView(building: (repeat each content)) }
}

@available(*, unavailable)
extension ViewBuilder: Sendable {}

@available(iOS 13.0, *)
extension ViewBuilder {
    /// Produces an optional view for conditional statements in multi-statement closures.
    public static func buildIf<Content>(_ content: Content?) -> Content? where Content: View { content }

    /// Produces content for a conditional statement's first branch.
    public static func buildEither<TrueContent, FalseContent>(
        first: TrueContent
    ) -> _ConditionalContent<TrueContent, FalseContent> where TrueContent: View, FalseContent: View {
        _ConditionalContent(storage: .trueContent(first))
    }

    /// Produces content for a conditional statement's second branch.
    public static func buildEither<TrueContent, FalseContent>(
        second: FalseContent
    ) -> _ConditionalContent<TrueContent, FalseContent> where TrueContent: View, FalseContent: View {
        _ConditionalContent(storage: .falseContent(second))
    }
}

@available(iOS 14.0, *)
extension ViewBuilder {
    /// Processes view content for a conditional compiler-control statement that checks availability.
    public static func buildLimitedAvailability<Content>(_ content: Content) -> AnyView where Content: View {
        AnyView(building: content)
    }
}
