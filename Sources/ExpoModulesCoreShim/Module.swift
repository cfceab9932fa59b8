// A look-alike of the parts of Expo's Swift module API (expo-modules-core) that DropTrack's Expo
// module uses, for Linux, where Expo does not exist. Never built on Apple platforms: sources import
// ExpoModulesCore there. Shapes follow docs.expo.dev/modules/module-api and expo-modules-core's
// Swift sources: `Module` is `AnyModule & BaseModule`, and `definition()` is a `ModuleDefinitionBuilder`.
//
// Unlike Expo, the look-alike records what a definition declares (its name, events and functions),
// and lets tests call a function by name with JavaScript-like values and hear the events a module
// sends (the `package` members). That recording is a test aid, not Expo behaviour.
import Foundation
import Synchronization

/// The app's context: in Expo it reaches the React Native runtime and the other modules.
public final class AppContext: Sendable {
    /// Creates a context (Expo makes one per React Native instance).
    public init() {}
}

/// The requirements of every module: an initializer taking the app context, and the definition.
public protocol AnyModule: AnyObject, AnyArgument {
    init(appContext: AppContext)

    /// Declares what the module exports to JavaScript.
    @ModuleDefinitionBuilder
    func definition() -> ModuleDefinition
}

/// Holds the app context and sends events; a module subclasses it (through `Module`).
open class BaseModule {
    /// The context the module belongs to.
    public private(set) weak var appContext: AppContext?

    private let eventListeners = Mutex<[@Sendable (String, [String: Any?]) -> Void]>([])

    /// Expo creates modules; their setup goes in `OnCreate`.
    required public init(appContext: AppContext) {
        self.appContext = appContext
    }

    /// Sends an event to JavaScript listeners of `eventName` (declared with `Events`).
    public func sendEvent(_ eventName: String, _ body: [String: Any?] = [:]) {
        for listener in eventListeners.withLock({ $0 }) { listener(eventName, body) }
    }

    /// Test aid: hears every event the module sends, as JavaScript listeners would.
    package func addEventListener(_ listener: @escaping @Sendable (String, [String: Any?]) -> Void) {
        eventListeners.withLock { $0.append(listener) }
    }
}

/// What a module class inherits from: `public class MyModule: Module { public func definition() … }`.
public typealias Module = AnyModule & BaseModule
