// Expo's exceptions, as expo-modules-core declares them (see Arguments.swift for what the look-alike
// simplifies). A function that throws an `Exception` rejects JavaScript's promise with its `code` and
// `description`; any other error reaches JavaScript as Expo's "unexpected" exception.
import Foundation

/// An error with a code JavaScript can match on, and a description.
public protocol CodedError: Error, CustomStringConvertible {
    var code: String { get }
    var description: String { get }
}

extension CodedError {
    /// The code from the type's name: `ModuleNotFoundError` is `ERR_MODULE_NOT_FOUND`.
    public var code: String { errorCode(from: String(describing: type(of: self))) }

    /// The error's localized description.
    public var description: String { localizedDescription }
}

/// An exception that may have been caused by another error.
public protocol ChainableException: Error, AnyObject {
    /// The direct cause of the exception.
    var cause: (any Error)? { get set }
    /// The first error that started the chain of exceptions.
    var rootCause: (any Error)? { get }
    /// Sets the direct cause of the exception and returns itself.
    func causedBy(_ error: any Error) -> Self
    /// Whether any cause in the chain is of the given type.
    func isCausedBy<ErrorType: Error>(_ errorType: ErrorType.Type) -> Bool
}

extension ChainableException {
    public var rootCause: (any Error)? {
        if let cause = cause as? any ChainableException { return cause.rootCause ?? cause }
        return cause
    }

    @discardableResult
    public func causedBy(_ error: any Error) -> Self {
        cause = error
        return self
    }

    public func isCausedBy<ErrorType: Error>(_ errorType: ErrorType.Type) -> Bool {
        if cause is ErrorType { return true }
        return (cause as? any ChainableException)?.isCausedBy(errorType) ?? false
    }
}

/// The place in code where an exception was created.
public struct ExceptionOrigin: CustomStringConvertible, Sendable {
    let file: String
    let line: UInt
    let function: String

    public var description: String { "at \(file):\(line) in \(function)" }
}

/// The base class of the errors a module throws to JavaScript: subclass it and override `reason`.
open class Exception: CodedError, ChainableException, CustomStringConvertible, CustomDebugStringConvertible,
    @unchecked Sendable
{
    /// The exception's name, by default its class's name.
    open lazy var name: String = String(describing: Self.self)

    /// Why the exception was thrown.
    open var reason: String { "undefined reason" }

    /// Where the exception was created.
    open var origin: ExceptionOrigin

    let customCode: String?

    /// Captures the place in code where the exception is created; call it without arguments.
    public init(file: String = #fileID, line: UInt = #line, function: String = #function) {
        origin = ExceptionOrigin(file: file, line: line, function: function)
        customCode = nil
    }

    /// An exception with the given name, description and code.
    public init(
        name: String, description: String, code: String? = nil, file: String = #fileID, line: UInt = #line,
        function: String = #function
    ) {
        origin = ExceptionOrigin(file: file, line: line, function: function)
        customCode = code
        self.name = name
        self.description = description
    }

    /// The code JavaScript receives, by default from the name (`ERR_…`).
    open var code: String { customCode ?? errorCode(from: name) }

    /// The error that caused this one.
    open var cause: (any Error)?

    /// The reason, followed by the cause's description.
    open lazy var description: String = describe(reason, cause: cause, debug: false)

    /// The name, the reason and the origin, followed by the cause's.
    open var debugDescription: String {
        describe("\(name): \(reason) (at \(origin.file):\(origin.line))", cause: cause, debug: true)
    }
}

/// An exception that carries a value to describe itself with (`param`).
open class GenericException<ParamType: ~Copyable>: Exception, @unchecked Sendable {
    /// The value passed to the initializer.
    public let param: ParamType

    /// Takes the value and captures the place in code where the exception is created.
    public init(_ param: consuming ParamType, file: String = #fileID, line: UInt = #line, function: String = #function)
    {
        self.param = param
        super.init(file: file, line: line, function: function)
    }
}

/// Thrown when JavaScript passed a value a function's argument cannot take (Expo's is internal too).
package final class ArgumentCastException: GenericException<String>, @unchecked Sendable {
    override package var reason: String { param }
}

private func describe(_ text: String, cause: (any Error)?, debug: Bool) -> String {
    switch cause {
    case let cause as Exception: text + "\n→ Caused by: " + (debug ? cause.debugDescription : cause.description)
    case let cause as any CodedError: text + "\n→ Caused by: " + cause.description
    case let cause?: text + "\n→ Caused by: " + cause.localizedDescription
    default: text
    }
}

/// `ModuleNotFoundError` → `ERR_MODULE_NOT_FOUND`.
func errorCode(from name: String) -> String {
    var base = name
    if let generic = base.firstIndex(of: "<") { base = String(base[..<generic]) }
    for suffix in ["Error", "Exception"] where base.hasSuffix(suffix) { base.removeLast(suffix.count) }
    var words = ""
    for (index, character) in base.enumerated() {
        if index > 0, character.isUppercase { words += "_" }
        words.append(character)
    }
    return "ERR_" + words.uppercased()
}
