// The argument types a module function can take, and how JavaScript's values become them, as Expo
// converts them: a JavaScript number becomes `Double`, or `Int` when it is whole; null and undefined
// become `nil` for an optional and fail otherwise; an object becomes `[String: Any]`.
import Foundation

/// A type a module function can take from JavaScript.
public protocol AnyArgument {}

extension String: AnyArgument {}
extension Bool: AnyArgument {}
extension Int: AnyArgument {}
extension Double: AnyArgument {}
extension Dictionary: AnyArgument {}
extension Array: AnyArgument {}
extension Optional: AnyArgument where Wrapped: AnyArgument {}

/// Thrown when JavaScript passed a value the function's argument cannot take (Expo's message shape).
public struct ArgumentCastException: Error, CustomStringConvertible {
    /// What went wrong.
    public let reason: String

    public var description: String { reason }
}

/// How the look-alike turns one JavaScript value into an argument type.
protocol JavaScriptConvertible {
    static func fromJavaScript(_ value: Any) -> Self?
}

extension String: JavaScriptConvertible {
    static func fromJavaScript(_ value: Any) -> String? { value as? String }
}

extension Bool: JavaScriptConvertible {
    static func fromJavaScript(_ value: Any) -> Bool? { value as? Bool }
}

extension Double: JavaScriptConvertible {
    static func fromJavaScript(_ value: Any) -> Double? { (value as? Double) ?? (value as? Int).map(Double.init) }
}

extension Int: JavaScriptConvertible {
    static func fromJavaScript(_ value: Any) -> Int? {
        if let whole = value as? Int { return whole }
        guard let number = value as? Double, number == number.rounded(), abs(number) < 1e15 else { return nil }
        return Int(number)
    }
}

extension Dictionary: JavaScriptConvertible {
    static func fromJavaScript(_ value: Any) -> Dictionary? { value as? Dictionary }
}

extension Array: JavaScriptConvertible {
    static func fromJavaScript(_ value: Any) -> Array? { value as? Array }
}

/// JavaScript's null and undefined: `NSNull`, or a Swift `nil` passed as `Any`.
func isNull(_ value: Any) -> Bool {
    if value is NSNull { return true }
    let mirror = Mirror(reflecting: value)
    return mirror.displayStyle == .optional && mirror.children.isEmpty
}

/// Decodes argument `index` of `arguments` as `Argument`; a missing trailing argument is undefined.
func argument<Argument>(_ arguments: [Any], _ index: Int, as type: Argument.Type) throws -> Argument {
    let value: Any = index < arguments.count ? arguments[index] : NSNull()
    if let optional = Argument.self as? any OptionalArgument.Type {
        if isNull(value) { return optional.null as! Argument }
        return try optional.wrapping(value, index) as! Argument
    }
    // A Swift optional passed as `Any` stands for its wrapped value, as a bridged JavaScript value would.
    let mirror = Mirror(reflecting: value)
    let unwrapped: Any? = mirror.displayStyle == .optional ? mirror.children.first?.value : value
    guard let unwrapped, !isNull(unwrapped),
        let convertible = Argument.self as? any JavaScriptConvertible.Type,
        let converted = convertible.fromJavaScript(unwrapped) as? Argument
    else {
        throw ArgumentCastException(
            reason: "Argument at index '\(index)' couldn't be cast to type \(Argument.self) (got \(value))")
    }
    return converted
}

/// `Optional` of an argument type: null is `nil`, anything else decodes as the wrapped type.
protocol OptionalArgument {
    static var null: Self { get }
    static func wrapping(_ value: Any, _ index: Int) throws -> Self
}

extension Optional: OptionalArgument {
    static var null: Optional { nil }

    static func wrapping(_ value: Any, _ index: Int) throws -> Optional {
        .some(try argument([value], 0, as: Wrapped.self))
    }
}

/// Refuses more arguments than the function takes, as Expo does.
func checkCount(_ arguments: [Any], _ expected: Int, _ name: String) throws {
    guard arguments.count <= expected else {
        throw ArgumentCastException(
            reason: "Received \(arguments.count) arguments, but \(expected) was expected (function '\(name)')")
    }
}
