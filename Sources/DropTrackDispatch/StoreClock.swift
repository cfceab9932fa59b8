import DropTrackCore
import DropTrackStore
import Foundation
import Synchronization

/// The shared store's clock, read through this machine's: the machine's time plus an offset
/// measured against the database. Replicas then agree on when a lease runs out, when a send is
/// due, and when an activity ends, goes stale or is dismissed, however far their own clocks drift:
/// a replica running a minute ahead would otherwise take over leases that other replicas still
/// hold (a duplicate push) and end activities a minute early.
///
/// Stores that live in one process (memory, SQLite) have no clock of their own; the offset then
/// stays 0 and this reads the machine's clock.
public final class StoreClock: WallClock {
    /// An offset beyond this is logged as a warning: the machine's clock needs fixing.
    public static let warningOffsetSeconds = 1.0

    private let base: any WallClock
    private let store: any DeliveryStore
    private let logger: Logger
    /// How often the offset is measured again.
    public let resynchronizeInterval: Duration
    private struct Measurement {
        var offset = 0.0
        var measuredAt: ContinuousClock.Instant?
        var warned = false
        var measuring = false
        /// False once the store said it has no clock: nothing to measure again.
        var storeHasClock = true

        func isDue(every interval: Duration) -> Bool {
            storeHasClock && (measuredAt.map { ContinuousClock.now - $0 >= interval } ?? true)
        }
    }

    private let state = Mutex(Measurement())

    /// Creates a clock over `base` (the machine's), aligned with `store`'s database.
    public init(
        base: any WallClock = SystemWallClock(), store: any DeliveryStore, logger: Logger = .disabled,
        resynchronizeInterval: Duration = .seconds(10)
    ) {
        self.resynchronizeInterval = resynchronizeInterval
        self.base = base
        self.store = store
        self.logger = logger
    }

    /// The database's time as this machine best knows it. When the offset is older than
    /// `resynchronizeInterval`, a thread of its own measures it again (never the caller, who may be
    /// inside a transaction): whoever reads the clock keeps it fresh.
    public func now() -> Date {
        let (offset, stale) = state.withLock { state -> (Double, Bool) in
            let stale = !state.measuring && state.isDue(every: resynchronizeInterval)
            if stale { state.measuring = true }
            return (state.offset, stale)
        }
        if stale {
            let thread = Thread { [self] in
                synchronizeIfDue()
                state.withLock { $0.measuring = false }
            }
            thread.name = "store-clock"
            thread.start()
        }
        return base.now().addingTimeInterval(offset)
    }

    /// The database's clock minus the machine's, in seconds, as last measured (0 before that).
    public var offsetSeconds: Double { state.withLock { $0.offset } }

    /// Measures the offset: the database's time against the midpoint of the machine's times
    /// around the query, so half the round trip is allowed for. Returns nil, and keeps the offset
    /// at 0, for a store without a clock of its own.
    @discardableResult
    public func synchronize() throws -> Double? {
        let base = self.base
        let measured: Double? = try store.transaction { tx in
            let before = base.now()
            guard let database = try tx.databaseTime() else { return nil }
            let after = base.now()
            let midpoint = before.addingTimeInterval(after.timeIntervalSince(before) / 2)
            return database.timeIntervalSince(midpoint)
        }
        let warn: Bool? = state.withLock { state in
            state.measuredAt = .now
            state.offset = measured ?? 0
            state.storeHasClock = measured != nil
            let beyond = abs(state.offset) > Self.warningOffsetSeconds
            defer { state.warned = beyond }
            return beyond == state.warned ? nil : beyond
        }
        if let measured, let warn {
            if warn {
                logger.warning(
                    "clock.offset",
                    [
                        "offset_seconds": String(format: "%.3f", measured),
                        "fix":
                            "this machine's clock differs from the database's; run NTP (chrony or systemd-timesyncd). DropTrack uses the database's time meanwhile",
                    ])
            } else {
                logger.info("clock.offset_recovered", ["offset_seconds": String(format: "%.3f", measured)])
            }
        }
        return measured
    }

    /// Measures again when the last measurement is older than `resynchronizeInterval` (by the
    /// machine's monotonic clock, so a jump of the wall clock cannot postpone it). A store that
    /// does not answer keeps the last offset.
    public func synchronizeIfDue() {
        guard state.withLock({ $0.isDue(every: resynchronizeInterval) }) else { return }
        do { try synchronize() } catch {
            state.withLock { $0.measuredAt = .now }
            logger.warning("clock.offset_unmeasured", ["error": "\(error)"])
        }
    }
}
