// `Function` and `AsyncFunction` for zero to four typed arguments, as Expo overloads them. The
// look-alike records each as a closure over JavaScript's arguments (see Module.swift).
import Foundation

/// Defines a function JavaScript calls synchronously.
public func Function<R>(
    _ name: String, _ closure: @escaping () throws -> R
) -> FunctionDefinition {
    FunctionDefinition(name: name) { arguments in
        try checkCount(arguments, 0, name)
        return try closure()
    }
}

/// Defines a function JavaScript calls synchronously.
public func Function<R, A0: AnyArgument>(
    _ name: String, _ closure: @escaping (A0) throws -> R
) -> FunctionDefinition {
    FunctionDefinition(name: name) { arguments in
        try checkCount(arguments, 1, name)
        return try closure(try argument(arguments, 0, as: A0.self))
    }
}

/// Defines a function JavaScript calls synchronously.
public func Function<R, A0: AnyArgument, A1: AnyArgument>(
    _ name: String, _ closure: @escaping (A0, A1) throws -> R
) -> FunctionDefinition {
    FunctionDefinition(name: name) { arguments in
        try checkCount(arguments, 2, name)
        return try closure(try argument(arguments, 0, as: A0.self), try argument(arguments, 1, as: A1.self))
    }
}

/// Defines a function JavaScript calls synchronously.
public func Function<R, A0: AnyArgument, A1: AnyArgument, A2: AnyArgument>(
    _ name: String, _ closure: @escaping (A0, A1, A2) throws -> R
) -> FunctionDefinition {
    FunctionDefinition(name: name) { arguments in
        try checkCount(arguments, 3, name)
        return try closure(
            try argument(arguments, 0, as: A0.self), try argument(arguments, 1, as: A1.self),
            try argument(arguments, 2, as: A2.self))
    }
}

/// Defines a function JavaScript calls synchronously.
public func Function<R, A0: AnyArgument, A1: AnyArgument, A2: AnyArgument, A3: AnyArgument>(
    _ name: String, _ closure: @escaping (A0, A1, A2, A3) throws -> R
) -> FunctionDefinition {
    FunctionDefinition(name: name) { arguments in
        try checkCount(arguments, 4, name)
        return try closure(
            try argument(arguments, 0, as: A0.self), try argument(arguments, 1, as: A1.self),
            try argument(arguments, 2, as: A2.self), try argument(arguments, 3, as: A3.self))
    }
}

/// Defines a function JavaScript calls for a Promise.
public func AsyncFunction<R>(
    _ name: String, _ closure: @escaping () async throws -> R
) -> FunctionDefinition {
    FunctionDefinition(name: name) { arguments in
        try checkCount(arguments, 0, name)
        return try await closure()
    }
}

/// Defines a function JavaScript calls for a Promise.
public func AsyncFunction<R, A0: AnyArgument>(
    _ name: String, _ closure: @escaping (A0) async throws -> R
) -> FunctionDefinition {
    FunctionDefinition(name: name) { arguments in
        try checkCount(arguments, 1, name)
        return try await closure(try argument(arguments, 0, as: A0.self))
    }
}

/// Defines a function JavaScript calls for a Promise.
public func AsyncFunction<R, A0: AnyArgument, A1: AnyArgument>(
    _ name: String, _ closure: @escaping (A0, A1) async throws -> R
) -> FunctionDefinition {
    FunctionDefinition(name: name) { arguments in
        try checkCount(arguments, 2, name)
        return try await closure(try argument(arguments, 0, as: A0.self), try argument(arguments, 1, as: A1.self))
    }
}

/// Defines a function JavaScript calls for a Promise.
public func AsyncFunction<R, A0: AnyArgument, A1: AnyArgument, A2: AnyArgument>(
    _ name: String, _ closure: @escaping (A0, A1, A2) async throws -> R
) -> FunctionDefinition {
    FunctionDefinition(name: name) { arguments in
        try checkCount(arguments, 3, name)
        return try await closure(
            try argument(arguments, 0, as: A0.self), try argument(arguments, 1, as: A1.self),
            try argument(arguments, 2, as: A2.self))
    }
}

/// Defines a function JavaScript calls for a Promise.
public func AsyncFunction<R, A0: AnyArgument, A1: AnyArgument, A2: AnyArgument, A3: AnyArgument>(
    _ name: String, _ closure: @escaping (A0, A1, A2, A3) async throws -> R
) -> FunctionDefinition {
    FunctionDefinition(name: name) { arguments in
        try checkCount(arguments, 4, name)
        return try await closure(
            try argument(arguments, 0, as: A0.self), try argument(arguments, 1, as: A1.self),
            try argument(arguments, 2, as: A2.self), try argument(arguments, 3, as: A3.self))
    }
}
