// A module's definition, its builder and the components that are not functions, as expo-modules-core
// declares them (see Arguments.swift for what the look-alike simplifies). The builder takes `if`,
// `if #available` and `if … else` like Expo's, so a definition can leave out what an older iOS lacks.
import Foundation

/// One component of a module's definition.
public protocol AnyDefinition {}

/// A definition that exports an object's functions (the base of `ModuleDefinition`).
public class ObjectDefinition: AnyDefinition {
    /// The functions JavaScript can call, by name.
    let functions: [String: any FunctionRecord]

    init(definitions: [any AnyDefinition]) {
        var functions: [String: any FunctionRecord] = [:]
        for case let function as any FunctionRecord in flattened(definitions) { functions[function.name] = function }
        self.functions = functions
    }
}

/// What a module exports to JavaScript.
public final class ModuleDefinition: ObjectDefinition {
    /// The name JavaScript requires the module by (`requireNativeModule(name)`).
    package let name: String
    /// The events the module declares.
    package let eventNames: [String]
    let listeners: [EventListener]

    override init(definitions: [any AnyDefinition]) {
        let all = flattened(definitions)
        name = all.compactMap { ($0 as? ModuleNameDefinition)?.name }.last ?? ""
        eventNames = all.compactMap { $0 as? EventsDefinition }.flatMap(\.names)
        listeners = all.compactMap { $0 as? EventListener }
        super.init(definitions: all)
    }

    /// For tests: the functions JavaScript can call, by name.
    package var functionNames: [String] { functions.keys.sorted() }

    /// For tests: calls a function as JavaScript would, with JavaScript-like values (`NSNull()` for null,
    /// numbers as `Double`), and answers what JavaScript would receive.
    package func call(_ name: String, _ arguments: [Any] = []) async throws -> Any? {
        guard let function = functions[name] else {
            throw ArgumentCastException("the module defines no function '\(name)'")
        }
        return try await function.invoke(arguments)
    }

    /// For tests: runs the `OnCreate`, `OnDestroy`, `OnAppBecomesActive`… closures.
    package func run(_ event: EventListener.Event) {
        for listener in listeners where listener.event == event { listener.closure() }
    }
}

/// The definitions inside a nested definition (an `if` in the builder) count as the module's own.
private func flattened(_ definitions: [any AnyDefinition]) -> [any AnyDefinition] {
    definitions.flatMap { definition -> [any AnyDefinition] in
        guard let nested = definition as? ModuleDefinition else { return [definition] }
        return nested.nested
    }
}

extension ModuleDefinition {
    /// Everything a nested definition held, to merge into the enclosing one.
    fileprivate var nested: [any AnyDefinition] {
        var all: [any AnyDefinition] = listeners
        all.append(contentsOf: functions.values.map { $0 as any AnyDefinition })
        all.append(EventsDefinition(names: eventNames))
        if !name.isEmpty { all.append(ModuleNameDefinition(name: name)) }
        return all
    }
}

/// Builds a `ModuleDefinition` from the components listed in `definition()`.
@resultBuilder
public struct ModuleDefinitionBuilder {
    public static func buildBlock(_ definitions: any AnyDefinition...) -> ModuleDefinition {
        ModuleDefinition(definitions: definitions)
    }

    public static func buildOptional(_ component: ModuleDefinition?) -> ModuleDefinition {
        component ?? ModuleDefinition(definitions: [])
    }

    public static func buildEither(first component: ModuleDefinition) -> ModuleDefinition { component }

    public static func buildEither(second component: ModuleDefinition) -> ModuleDefinition { component }

    public static func buildLimitedAvailability(_ component: ModuleDefinition) -> ModuleDefinition { component }
}

/// `Name(…)`.
struct ModuleNameDefinition: AnyDefinition {
    let name: String
}

/// The events a module can send to JavaScript (`Events(…)`).
public struct EventsDefinition: AnyDefinition {
    let names: [String]
}

/// A lifecycle closure (`OnCreate`, `OnDestroy`, `OnAppBecomesActive`…).
package struct EventListener: AnyDefinition {
    /// When the closure runs.
    package enum Event: Sendable {
        case moduleCreate, moduleDestroy, appEntersForeground, appBecomesActive, appEntersBackground
    }
    let event: Event
    let closure: () -> Void
}

/// Sets the name of the module that JavaScript code uses to refer to it.
public func Name(_ name: String) -> any AnyDefinition { ModuleNameDefinition(name: name) }

/// Declares the events the module can send to JavaScript.
public func Events(_ names: String...) -> EventsDefinition { EventsDefinition(names: names) }

/// Declares the events the module can send to JavaScript.
public func Events(_ names: [String]) -> EventsDefinition { EventsDefinition(names: names) }

/// Runs right after the module is created.
public func OnCreate(@_implicitSelfCapture _ closure: @escaping () -> Void) -> any AnyDefinition {
    EventListener(event: .moduleCreate, closure: closure)
}

/// Runs when the module is about to be deallocated (the React Native instance reloads).
public func OnDestroy(@_implicitSelfCapture _ closure: @escaping () -> Void) -> any AnyDefinition {
    EventListener(event: .moduleDestroy, closure: closure)
}

/// Runs when the app is about to enter the foreground.
public func OnAppEntersForeground(@_implicitSelfCapture _ closure: @escaping () -> Void) -> any AnyDefinition {
    EventListener(event: .appEntersForeground, closure: closure)
}

/// Runs whenever the app becomes active again.
public func OnAppBecomesActive(@_implicitSelfCapture _ closure: @escaping () -> Void) -> any AnyDefinition {
    EventListener(event: .appBecomesActive, closure: closure)
}

/// Runs when the app enters the background.
public func OnAppEntersBackground(@_implicitSelfCapture _ closure: @escaping () -> Void) -> any AnyDefinition {
    EventListener(event: .appEntersBackground, closure: closure)
}
