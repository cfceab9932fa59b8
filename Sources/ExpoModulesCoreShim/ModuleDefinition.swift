// The definition components of Expo's module API (`Name`, `Events`, `Function`, `AsyncFunction`,
// `OnCreate`, `OnDestroy`, `OnAppBecomesActive`), as the look-alike records them. See Module.swift.
import Foundation

/// One component of a module's definition.
public protocol AnyDefinition {}

/// Builds a `ModuleDefinition` from the components listed in `definition()`.
@resultBuilder
public enum ModuleDefinitionBuilder {
    public static func buildExpression(_ definition: any AnyDefinition) -> any AnyDefinition { definition }

    public static func buildBlock(_ definitions: any AnyDefinition...) -> ModuleDefinition {
        ModuleDefinition(definitions: definitions)
    }
}

/// What a module exports to JavaScript.
public final class ModuleDefinition: AnyDefinition {
    /// The name JavaScript requires the module by (`requireNativeModule(name)`).
    package let name: String?
    /// The events the module declares.
    package let eventNames: [String]
    private let functions: [String: FunctionDefinition]
    private let lifecycle: [LifecycleDefinition]

    init(definitions: [any AnyDefinition]) {
        name = definitions.compactMap { ($0 as? NameDefinition)?.name }.last
        eventNames = definitions.compactMap { $0 as? EventsDefinition }.flatMap(\.names)
        functions = Dictionary(
            definitions.compactMap { $0 as? FunctionDefinition }.map { ($0.name, $0) },
            uniquingKeysWith: { _, last in last })
        lifecycle = definitions.compactMap { $0 as? LifecycleDefinition }
    }

    /// Test aid: the functions JavaScript can call, by name.
    package var functionNames: [String] { functions.keys.sorted() }

    /// Test aid: calls a function as JavaScript would, with JavaScript-like values (`NSNull()` for
    /// null; numbers as `Double`), and answers what JavaScript would receive.
    package func call(_ name: String, _ arguments: [Any] = []) async throws -> Any? {
        guard let function = functions[name] else {
            throw ArgumentCastException(reason: "the module defines no function '\(name)'")
        }
        return try await function.body(arguments)
    }

    /// Test aid: runs the `OnCreate`, `OnDestroy` or `OnAppBecomesActive` closures.
    package func run(_ event: LifecycleDefinition.Event) {
        for definition in lifecycle where definition.event == event { definition.body() }
    }
}

/// `Name(…)`.
public struct NameDefinition: AnyDefinition {
    let name: String
}

/// `Events(…)`.
public struct EventsDefinition: AnyDefinition {
    let names: [String]
}

/// `Function(…)` and `AsyncFunction(…)`: the closure over JavaScript's arguments that decodes them.
public struct FunctionDefinition: AnyDefinition {
    let name: String
    let body: ([Any]) async throws -> Any?
}

/// `OnCreate`, `OnDestroy`, `OnAppBecomesActive`.
public struct LifecycleDefinition: AnyDefinition {
    /// When the closure runs.
    package enum Event: Sendable { case create, destroy, appBecomesActive }
    let event: Event
    let body: () -> Void
}

/// Sets the name of the module that JavaScript code uses to refer to it.
public func Name(_ name: String) -> NameDefinition { NameDefinition(name: name) }

/// Declares the events the module can send to JavaScript.
public func Events(_ names: String...) -> EventsDefinition { EventsDefinition(names: names) }

/// Runs when the module is created.
public func OnCreate(_ closure: @escaping () -> Void) -> LifecycleDefinition {
    LifecycleDefinition(event: .create, body: closure)
}

/// Runs when the module is deallocated (the React Native instance reloads).
public func OnDestroy(_ closure: @escaping () -> Void) -> LifecycleDefinition {
    LifecycleDefinition(event: .destroy, body: closure)
}

/// Runs whenever the app becomes active (`UIApplication.didBecomeActiveNotification`).
public func OnAppBecomesActive(_ closure: @escaping () -> Void) -> LifecycleDefinition {
    LifecycleDefinition(event: .appBecomesActive, body: closure)
}
