// Expo's module classes, as expo-modules-core declares them (see Arguments.swift for what the look-alike
// simplifies): a module subclasses `Module` (`AnyModule & BaseModule`) and declares what it exports in
// `definition()`.
import Foundation

/// The interface to one Expo app (Expo makes one per React Native instance).
public final class AppContext: NSObject {
    /// Creates a context (Expo makes them; tests make their own).
    public convenience override init() {
        self.init(listeners: [])
    }

    init(listeners: [String]) { super.init() }
}

/// The requirements of every module: an initializer taking the app context, and the definition.
public protocol AnyModule: AnyObject, AnyArgument {
    /// The default initializer; `BaseModule` implements it.
    init(appContext: AppContext)

    /// Declares what the module exports to JavaScript.
    @ModuleDefinitionBuilder
    func definition() -> ModuleDefinition
}

/// Holds the app context and sends events; a module subclasses it (through `Module`).
open class BaseModule {
    /// The context the module belongs to.
    public private(set) weak var appContext: AppContext?

    private let eventListeners = EventListeners()

    @available(
        *, unavailable,
        message: "Module's initializer cannot be overridden, override the \"didCreate\" lifecycle hook instead."
    )
    public init() { fatalError("unavailable") }

    /// Expo creates modules; their setup goes in `OnCreate`.
    required public init(appContext: AppContext) {
        self.appContext = appContext
    }

    /// Sends an event to JavaScript listeners of `eventName` (declared with `Events`).
    public func sendEvent(_ eventName: String, _ body: [String: Any?] = [:]) {
        eventListeners.send(eventName, body)
    }

    /// For tests: hears every event the module sends, as JavaScript listeners would.
    package func addEventListener(_ listener: @escaping @Sendable (String, [String: Any?]) -> Void) {
        eventListeners.add(listener)
    }
}

/// What a module class inherits from: `public class MyModule: Module { public func definition() … }`.
public typealias Module = AnyModule & BaseModule

/// The listeners a test added to a module; events may be sent from any thread, as in Expo.
private final class EventListeners: @unchecked Sendable {
    private let lock = NSLock()
    private var listeners: [@Sendable (String, [String: Any?]) -> Void] = []

    func add(_ listener: @escaping @Sendable (String, [String: Any?]) -> Void) {
        lock.withLock { listeners.append(listener) }
    }

    func send(_ name: String, _ body: [String: Any?]) {
        for listener in lock.withLock({ listeners }) { listener(name, body) }
    }
}
