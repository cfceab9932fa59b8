// `@Parameter` (`IntentParameter`), the value types it takes, and the initializer for a `String`
// parameter, as AppIntents declares them (see AppIntent.swift for what the look-alike simplifies).
import ActivityKitShim
import Foundation

/// A type that can be the value of an intent's parameter (App Intents' underscored base protocol).
@available(iOS 16.0, *)
@_alwaysEmitConformanceMetadata
public protocol _IntentValue {
    /// The type the parameter holds.
    associatedtype ValueType: _IntentValue = Self
    /// The type without any `Optional` or collection around it.
    associatedtype UnwrappedType: _IntentValue = Self
}

@available(iOS 16.0, *)
extension String: _IntentValue {}

/// The summary of an intent's parameters that Shortcuts shows (no requirements a Live Activity meets).
@available(iOS 16.0, *)
public protocol ParameterSummary {
    /// The intent summarized.
    associatedtype Intent: AppIntent
}

@available(iOS 16.0, *)
extension Never: _IntentValue, ParameterSummary {
    public typealias Intent = Never
}

@available(iOS 16.0, *)
extension String {
    /// How a text parameter is typed in when the system asks for it.
    public struct IntentInputOptions {}
}

/// How a parameter takes the output of the intent before it in a shortcut.
@available(iOS 16.0, *)
public enum InputConnectionBehavior {
    case `default`
    case never
    case connectToPreviousIntentResult
}

/// What the system says when it asks for a value.
@available(iOS 16.0, *)
public struct IntentDialog: ExpressibleByStringInterpolation, Sendable {
    /// The text, for tests.
    package let text: String

    public init(stringLiteral value: String) { text = value }
}

/// A property wrapper that makes a property of an intent one of its parameters, stored by the system
/// with the intent (a Live Activity's button keeps them in its view).
@available(iOS 16.0, *)
@propertyWrapper
public final class IntentParameter<Value>: @unchecked Sendable where Value: _IntentValue, Value: Sendable {
    /// The value used when none is set.
    public final let defaultValue: Value.UnwrappedType?
    /// The parameter's name, as shown to people.
    public final let title: LocalizedStringResource
    private let lock = NSLock()
    private var value: Value?

    init(title: LocalizedStringResource, defaultValue: Value.UnwrappedType?) {
        self.title = title
        self.defaultValue = defaultValue
        value = defaultValue as? Value
    }

    @available(*, unavailable)
    public init() { fatalError("look-alike: a parameter needs its title") }

    /// The parameter itself (`$name`).
    public final var projectedValue: IntentParameter<Value> { self }

    /// The value; reading one never set stops the program, as the system never runs an intent whose
    /// required parameter has no value.
    public final var wrappedValue: Value {
        get {
            guard let value = lock.withLock({ value }) else {
                fatalError("look-alike: parameter '\(title.key)' read before it was set")
            }
            return value
        }
        set { lock.withLock { value = newValue } }
    }
}

@available(iOS 16.0, *)
extension IntentParameter where Value.ValueType == String {
    /// A text parameter.
    public convenience init(
        title: LocalizedStringResource, description: LocalizedStringResource? = nil,
        default defaultValue: _const Value.UnwrappedType? = nil, inputOptions: String.IntentInputOptions? = nil,
        requestValueDialog: IntentDialog? = nil, inputConnectionBehavior: _const InputConnectionBehavior = .default
    ) {
        self.init(title: title, defaultValue: defaultValue)
    }
}
