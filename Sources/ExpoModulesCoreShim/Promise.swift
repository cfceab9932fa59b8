// Expo's `Promise` argument, as expo-modules-core declares it (see Arguments.swift for what the
// look-alike simplifies): a function whose last argument is a `Promise` answers JavaScript by resolving
// or rejecting it, from any thread.
import Foundation

/// What JavaScript awaits, for a function that answers later than it returns.
public struct Promise: AnyArgument, Sendable {
    public typealias ResolveClosure = @Sendable (Any?) -> Void
    public typealias RejectClosure = @Sendable (Exception) -> Void

    /// Resolves the JavaScript promise.
    public var resolver: ResolveClosure
    /// Rejects the JavaScript promise.
    public var rejecter: RejectClosure

    /// For tests: a promise whose outcome reaches the given closures.
    package init(resolver: @escaping ResolveClosure, rejecter: @escaping RejectClosure) {
        self.resolver = resolver
        self.rejecter = rejecter
    }

    /// Resolves with `value` (nil is JavaScript's undefined).
    public func resolve(_ value: Any? = nil) { resolver(value) }

    /// Rejects with `error`: an `Exception` as it is, any other error as an unexpected one.
    public func reject(_ error: any Error) {
        if let exception = error as? Exception {
            rejecter(exception)
        } else {
            rejecter(Exception(name: "UnexpectedException", description: error.localizedDescription))
        }
    }

    /// Rejects with `error`.
    public func reject(_ error: Exception) { rejecter(error) }

    /// Rejects with a code and a description.
    public func reject(_ code: String, _ description: String) {
        rejecter(Exception(name: code, description: description, code: code))
    }

    /// Resolves or rejects with a `Result`.
    public func settle<ValueType, ExceptionType: Exception>(with result: Result<ValueType, ExceptionType>) {
        switch result {
        case .success(let value): resolve(value)
        case .failure(let exception): reject(exception)
        }
    }
}
