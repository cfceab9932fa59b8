import Foundation
import Synchronization

/// A one-shot value that threads can wait for, with a deadline: the single bridge from a callback
/// to code that must block (the registry's channel calls, CLI commands), and the way a service says
/// it has stopped. A condition variable, so waiters wake the moment the value arrives rather than
/// on the next turn of a sleep loop.
public final class Latch<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var value: Value?

    /// Creates an open latch.
    public init() {}

    /// Sets the value (the first one wins) and wakes every waiter.
    public func resolve(_ value: Value) {
        condition.lock()
        defer { condition.unlock() }
        guard self.value == nil else { return }
        self.value = value
        condition.broadcast()
    }

    /// The value, if it has arrived.
    public var resolved: Value? {
        condition.lock()
        defer { condition.unlock() }
        return value
    }

    /// Waits until the value arrives or `deadline` passes; nil on the deadline.
    public func wait(until deadline: ContinuousClock.Instant) -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while value == nil {
            let left = deadline - .now
            guard left > .zero else { return nil }
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            _ = condition.wait(until: Date().addingTimeInterval(seconds))
        }
        return value
    }

    /// Waits up to `timeout`.
    public func wait(timeout: Duration) -> Value? { wait(until: .now + timeout) }
}

/// Calls `call`, which answers through a callback on another thread, and waits up to `timeout` for
/// the answer; nil when none came in time.
public func waitForCallback<Value: Sendable>(
    timeout: Duration, _ call: (@escaping @Sendable (Value) -> Void) -> Void
) -> Value? {
    let latch = Latch<Value>()
    call { latch.resolve($0) }
    return latch.wait(timeout: timeout)
}

/// A part of the server with a life of its own: started in order, stopped in reverse.
public protocol Service: Sendable {
    /// A short name for logs.
    var serviceName: String { get }
    /// Starts the service's threads or sockets.
    func start() throws
    /// Stops it, finishing what it can before `deadline`; false if it had to leave work unfinished.
    func shutdown(deadline: ContinuousClock.Instant) -> Bool
}

/// Services started in the order given and stopped in the reverse order, each within what is left of
/// one deadline. A service that fails to start stops the ones already started.
public final class ServiceGroup: Sendable {
    private let services: [any Service]
    private let started = Mutex(0)

    /// Creates a group; nothing starts until `start`.
    public init(_ services: [any Service]) { self.services = services }

    /// Starts every service in order.
    public func start() throws {
        for service in services {
            do {
                try service.start()
            } catch {
                _ = shutdown(deadline: .now + .seconds(10))
                throw error
            }
            started.withLock { $0 += 1 }
        }
    }

    /// Stops the started services in reverse order; returns the names of those that left work unfinished.
    @discardableResult
    public func shutdown(deadline: ContinuousClock.Instant) -> [String] {
        let count = started.withLock { count in
            defer { count = 0 }
            return count
        }
        var unfinished: [String] = []
        for service in services.prefix(count).reversed() where !service.shutdown(deadline: deadline) {
            unfinished.append(service.serviceName)
        }
        return unfinished
    }
}
