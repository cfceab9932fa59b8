// `Function` and `AsyncFunction` and the definitions they return, as expo-modules-core declares them
// (ios/Api/Factories/ and ios/Core/Functions/; see Arguments.swift for what the look-alike simplifies).
// `Function` runs synchronously on JavaScript's thread; `AsyncFunction` with a synchronous closure runs
// on a dispatch queue, with an `async` closure in a task; both answer JavaScript with a promise.
import Foundation

/// A function JavaScript calls synchronously.
public final class SyncFunctionDefinition<Args, FirstArgType, ReturnType>: AnyDefinition, @unchecked Sendable {
    let name: String
    let body: ([Any]) throws -> Any?

    init(_ name: String, body: @escaping ([Any]) throws -> Any?) {
        self.name = name
        self.body = body
    }
}

/// A function JavaScript calls for a promise, whose synchronous closure runs on a queue.
public class AsyncFunctionDefinition<Args, FirstArgType, ReturnType>: AnyDefinition, @unchecked Sendable {
    let name: String
    let body: ([Any]) throws -> Any?
    var queue: DispatchQueue?

    init(_ name: String, body: @escaping ([Any]) throws -> Any?) {
        self.name = name
        self.body = body
    }

    /// Sets the queue the function runs on (Expo's default is a queue of its own).
    public func runOnQueue(_ queue: DispatchQueue?) -> Self {
        self.queue = queue
        return self
    }
}

/// A function JavaScript calls for a promise, whose `async` closure runs in a task.
public final class ConcurrentFunctionDefinition<Args, FirstArgType, ReturnType>: AnyDefinition {
    let name: String
    let body: ([Any]) async throws -> Any?

    init(_ name: String, body: @escaping ([Any]) async throws -> Any?) {
        self.name = name
        self.body = body
    }
}

/// A function definition, type-erased, that a test can call by name.
protocol FunctionRecord: AnyDefinition {
    var name: String { get }
    func invoke(_ arguments: [Any]) async throws -> Any?
}

extension SyncFunctionDefinition: FunctionRecord {
    func invoke(_ arguments: [Any]) async throws -> Any? { try body(arguments) }
}

extension AsyncFunctionDefinition: FunctionRecord {
    func invoke(_ arguments: [Any]) async throws -> Any? { try body(arguments) }
}

extension ConcurrentFunctionDefinition: FunctionRecord {
    func invoke(_ arguments: [Any]) async throws -> Any? { try await body(arguments) }
}

/// JavaScript's arguments for one call, read in order as the closure's argument types.
final class CallArguments {
    private let values: [Any]
    private var index = 0

    /// Refuses more arguments than the function takes, or fewer than its non-optional ones, as Expo does.
    init(_ values: [Any], types: [Any.Type], function: String) throws {
        let optional = types.reversed().prefix { $0 is any OptionalArgument.Type }.count
        guard values.count <= types.count, values.count >= types.count - optional else {
            throw ArgumentCastException(
                "Received \(values.count) arguments, but \(types.count) was expected (function '\(function)')")
        }
        self.values = values
    }

    func next<Argument>(_ type: Argument.Type) throws -> Argument {
        defer { index += 1 }
        return try argument(values, index, as: type)
    }
}

// MARK: - Function

/// A synchronous function without arguments.
public func Function<R>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping () throws -> R
) -> SyncFunctionDefinition<(), Void, R> {
    SyncFunctionDefinition(name) { values in
        _ = try CallArguments(values, types: [], function: name)
        return try closure()
    }
}

/// A synchronous function with one argument.
public func Function<R, A0: AnyArgument>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping (A0) throws -> R
) -> SyncFunctionDefinition<(A0), A0, R> {
    SyncFunctionDefinition(name) { values in
        let call = try CallArguments(values, types: [A0.self], function: name)
        return try closure(call.next(A0.self))
    }
}

/// A synchronous function with two arguments.
public func Function<R, A0: AnyArgument, A1: AnyArgument>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping (A0, A1) throws -> R
) -> SyncFunctionDefinition<(A0, A1), A0, R> {
    SyncFunctionDefinition(name) { values in
        let call = try CallArguments(values, types: [A0.self, A1.self], function: name)
        return try closure(call.next(A0.self), call.next(A1.self))
    }
}

/// A synchronous function with three arguments.
public func Function<R, A0: AnyArgument, A1: AnyArgument, A2: AnyArgument>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping (A0, A1, A2) throws -> R
) -> SyncFunctionDefinition<(A0, A1, A2), A0, R> {
    SyncFunctionDefinition(name) { values in
        let call = try CallArguments(values, types: [A0.self, A1.self, A2.self], function: name)
        return try closure(call.next(A0.self), call.next(A1.self), call.next(A2.self))
    }
}

/// A synchronous function with four arguments.
public func Function<R, A0: AnyArgument, A1: AnyArgument, A2: AnyArgument, A3: AnyArgument>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping (A0, A1, A2, A3) throws -> R
) -> SyncFunctionDefinition<(A0, A1, A2, A3), A0, R> {
    SyncFunctionDefinition(name) { values in
        let call = try CallArguments(values, types: [A0.self, A1.self, A2.self, A3.self], function: name)
        return try closure(call.next(A0.self), call.next(A1.self), call.next(A2.self), call.next(A3.self))
    }
}

// MARK: - AsyncFunction, synchronous closure

/// An asynchronous function without arguments.
public func AsyncFunction<R>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping () throws -> R
) -> AsyncFunctionDefinition<(), Void, R> {
    AsyncFunctionDefinition(name) { values in
        _ = try CallArguments(values, types: [], function: name)
        return try closure()
    }
}

/// An asynchronous function with one or more arguments.
public func AsyncFunction<R, A0: AnyArgument, each A: AnyArgument>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping (A0, repeat each A) throws -> R
) -> AsyncFunctionDefinition<(A0, repeat each A), A0, R> {
    AsyncFunctionDefinition(name) { values in
        var types: [Any.Type] = [A0.self]
        for type in repeat (each A).self { types.append(type) }
        let call = try CallArguments(values, types: types, function: name)
        return try closure(call.next(A0.self), repeat call.next((each A).self))
    }
}

// MARK: - AsyncFunction, async closure

/// A concurrently-executing asynchronous function without arguments.
public func AsyncFunction<R>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping () async throws -> R
) -> ConcurrentFunctionDefinition<(), Void, R> {
    ConcurrentFunctionDefinition(name) { values in
        _ = try CallArguments(values, types: [], function: name)
        return try await closure()
    }
}

/// A concurrently-executing asynchronous function with one argument.
public func AsyncFunction<R, A0: AnyArgument>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping (A0) async throws -> R
) -> ConcurrentFunctionDefinition<(A0), A0, R> {
    ConcurrentFunctionDefinition(name) { values in
        let call = try CallArguments(values, types: [A0.self], function: name)
        return try await closure(call.next(A0.self))
    }
}

/// A concurrently-executing asynchronous function with two arguments.
public func AsyncFunction<R, A0: AnyArgument, A1: AnyArgument>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping (A0, A1) async throws -> R
) -> ConcurrentFunctionDefinition<(A0, A1), A0, R> {
    ConcurrentFunctionDefinition(name) { values in
        let call = try CallArguments(values, types: [A0.self, A1.self], function: name)
        return try await closure(call.next(A0.self), call.next(A1.self))
    }
}

/// A concurrently-executing asynchronous function with three arguments.
public func AsyncFunction<R, A0: AnyArgument, A1: AnyArgument, A2: AnyArgument>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping (A0, A1, A2) async throws -> R
) -> ConcurrentFunctionDefinition<(A0, A1, A2), A0, R> {
    ConcurrentFunctionDefinition(name) { values in
        let call = try CallArguments(values, types: [A0.self, A1.self, A2.self], function: name)
        return try await closure(call.next(A0.self), call.next(A1.self), call.next(A2.self))
    }
}

/// A concurrently-executing asynchronous function with four arguments.
public func AsyncFunction<R, A0: AnyArgument, A1: AnyArgument, A2: AnyArgument, A3: AnyArgument>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping (A0, A1, A2, A3) async throws -> R
) -> ConcurrentFunctionDefinition<(A0, A1, A2, A3), A0, R> {
    ConcurrentFunctionDefinition(name) { values in
        let call = try CallArguments(values, types: [A0.self, A1.self, A2.self, A3.self], function: name)
        return try await closure(call.next(A0.self), call.next(A1.self), call.next(A2.self), call.next(A3.self))
    }
}

/// A concurrently-executing asynchronous function with five arguments.
public func AsyncFunction<R, A0: AnyArgument, A1: AnyArgument, A2: AnyArgument, A3: AnyArgument, A4: AnyArgument>(
    _ name: String, @_implicitSelfCapture _ closure: @escaping (A0, A1, A2, A3, A4) async throws -> R
) -> ConcurrentFunctionDefinition<(A0, A1, A2, A3, A4), A0, R> {
    ConcurrentFunctionDefinition(name) { values in
        let call = try CallArguments(values, types: [A0.self, A1.self, A2.self, A3.self, A4.self], function: name)
        return try await closure(
            call.next(A0.self), call.next(A1.self), call.next(A2.self), call.next(A3.self), call.next(A4.self))
    }
}
