// `IntentResult` and the one result container an intent that returns nothing needs, as AppIntents
// declares them (see AppIntent.swift for what the look-alike simplifies).
import ActivityKitShim
import Foundation

/// A type that contains the result of performing an intent.
@available(iOS 16.0, *)
public protocol IntentResult: Sendable {
    /// The value the intent returns, `Never` when it returns none.
    associatedtype Value: _IntentValue = Never
    /// The snippet view shown with the result, `Never` for none.
    associatedtype Snippet = Never
    /// The dialog spoken or shown with the result, `Never` for none.
    associatedtype Dialog = Never
    /// The value, if the intent returns one.
    var value: Self.Value? { get }
    /// The intent the result opens, `Never` for none.
    @available(iOS, deprecated: 18.2)
    associatedtype OpensAppIntent: AppIntent = Never
}

/// The concrete result `.result()` and its overloads make.
@available(iOS 16.0, *)
public struct IntentResultContainer<Value, OpensAppIntent, Snippet, Dialog>: IntentResult, @unchecked Sendable
where Value: _IntentValue, OpensAppIntent: AppIntent {
    /// The value the intent returns, if any.
    public var value: Value?
}

@available(iOS 16.0, *)
extension IntentResult {
    /// The result of an intent that returns nothing.
    public static func result() -> Self where Self == IntentResultContainer<Never, Never, Never, Never> {
        IntentResultContainer(value: nil)
    }
}

@available(iOS 16.0, *)
extension Never: AppIntent {
    nonisolated(unsafe) public static var title: LocalizedStringResource = "Never"
    public init() { fatalError("look-alike: Never has no instances") }
    public func perform() async throws -> IntentResultContainer<Never, Never, Never, Never> {
        switch self {}
    }
}
