// A look-alike of the part of Expo's Swift module API (expo-modules-core, ios/) that DropTrack's Expo
// module uses, for Linux, where Expo does not exist. Never built on Apple platforms: sources import
// ExpoModulesCore there (the pod), and Package.swift declares this target only when the manifest is
// read on Linux.
//
// Every public declaration here was written from expo-modules-core's Swift sources (ios/Api/Factories/
// and ios/Core/: Arguments, Records, Exceptions, Functions, Modules, Promise.swift, AppContext.swift):
// names, labels, generic requirements, effects, conformances. checks/lookalike_api.py lists them
// (Tests/LookalikeAPI/ExpoModulesCore.api).
//
// What it simplifies, and why:
// - No JavaScript runtime: `AnyArgument` has no `getDynamicType()` requirement (Expo's dynamic types
//   convert JSI values, which do not exist here); the look-alike converts JavaScript-like Swift values
//   itself, as Expo does: a number becomes `Double`, or `Int` when whole; null and undefined become
//   `nil` for an optional and fail otherwise; an object becomes `[String: Any]`; a `Record` is made
//   from an object by its `@Field`s.
// - `Function` and the concurrent `AsyncFunction` take 0 to 4 arguments (Expo: 0 to 8).
// - `AppContext` is an empty `NSObject` (Expo's is `@objc(EXAppContext)`, which Linux lacks);
//   `BaseModule.sendEvent` reaches the listeners a test adds.
// - `ObjectDefinition` does not build JavaScript objects (Expo's is also a `JavaScriptObjectBuilder`).
// - A definition's `if` block (`buildOptional`) adds its functions to the module here; the Expo
//   version these were read from builds the block into a nested `ModuleDefinition`, and only an app
//   build shows whether it exports them. DropTrack's module guards inside its functions instead.
// - The `package` members record a definition (its name, events and functions) and let tests call a
//   function by name and hear the events a module sends. That recording is a test aid, not Expo API.
import Foundation

/// A type a module function can take from JavaScript.
public protocol AnyArgument {}

extension Bool: AnyArgument {}
extension Int: AnyArgument {}
extension Int8: AnyArgument {}
extension Int16: AnyArgument {}
extension Int32: AnyArgument {}
extension Int64: AnyArgument {}
extension UInt: AnyArgument {}
extension UInt8: AnyArgument {}
extension UInt16: AnyArgument {}
extension UInt32: AnyArgument {}
extension UInt64: AnyArgument {}
extension Float32: AnyArgument {}
extension Double: AnyArgument {}
extension CGFloat: AnyArgument {}
extension String: AnyArgument {}
extension Optional: AnyArgument where Wrapped: AnyArgument {}
extension Dictionary: AnyArgument where Key: Hashable {}
extension Array: AnyArgument {}
extension Data: AnyArgument {}

/// A type that converts itself from whatever JavaScript passed (a `Record`, or your own type).
public protocol Convertible: AnyArgument {
    /// Converts `value` to this type; throws when it is not one.
    static func convert(from value: Any?, appContext: AppContext) throws -> Self
    /// Converts a function's result of this type to what JavaScript receives.
    static func convertResult(_ result: Any, appContext: AppContext) throws -> Any
}

extension Convertible {
    public static func convertResult(_ result: Any, appContext: AppContext) throws -> Any { result }
}

/// How the look-alike turns one JavaScript value into a primitive argument type.
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
    if let unwrapped, !isNull(unwrapped), let convertible = Argument.self as? any Convertible.Type {
        return try convertible.convert(from: unwrapped, appContext: AppContext()) as! Argument
    }
    guard let unwrapped, !isNull(unwrapped),
        let primitive = Argument.self as? any JavaScriptConvertible.Type,
        let converted = primitive.fromJavaScript(unwrapped) as? Argument
    else {
        throw ArgumentCastException(
            "Argument at index '\(index)' couldn't be cast to type \(Argument.self) (got \(value))")
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
