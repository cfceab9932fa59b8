import Foundation
import Synchronization

/// The source of wall-clock time for everything that stamps or expires: JWT `iat`, push timestamps,
/// stale and dismissal dates, retry schedules. Injected so tests can move time by hand.
public protocol WallClock: Sendable {
    /// The current time.
    func now() -> Date
}

extension WallClock {
    /// The current time as whole Unix seconds, rounded down.
    public func unixSeconds() -> Int64 { Int64(now().timeIntervalSince1970.rounded(.down)) }
}

/// The machine's clock.
public struct SystemWallClock: WallClock {
    /// Creates the system clock.
    public init() {}
    /// The current time from the operating system.
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to, for tests and for the doctor's `--now`.
public final class ManualWallClock: WallClock {
    private let current: Mutex<Date>

    /// Creates a clock that reads `start` until advanced.
    public init(_ start: Date) { current = Mutex(start) }

    /// Creates a clock at a Unix time in seconds.
    public convenience init(unixSeconds: Int64) { self.init(Date(timeIntervalSince1970: TimeInterval(unixSeconds))) }

    /// The time the clock was last set to.
    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward (or back, with a negative interval).
    public func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    /// Sets the clock to an exact time.
    public func set(_ date: Date) { current.withLock { $0 = date } }
}

/// A monotonic clock that only moves when told to: what `ContinuousClock` is to `SystemWallClock`,
/// `ManualMonotonicClock` is to `ManualWallClock`. Pass `clock.now` where a `() -> ContinuousClock.Instant`
/// is taken, and move it with `advance`.
public final class ManualMonotonicClock: Sendable {
    private let current = Mutex<ContinuousClock.Instant>(.now)

    /// Creates a clock that reads the present instant until advanced.
    public init() {}

    /// The instant the clock was last moved to.
    @Sendable public func now() -> ContinuousClock.Instant { current.withLock { $0 } }

    /// Moves the clock forward (a monotonic clock never goes back).
    public func advance(by duration: Duration) { current.withLock { $0 = $0.advanced(by: max(.zero, duration)) } }
}
