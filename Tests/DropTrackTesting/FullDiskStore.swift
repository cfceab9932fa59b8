import Foundation
import Synchronization

// For `SQLTransaction`: a full disk refuses writes, not reads, and only SQLite's `total_changes()` tells them apart.
@testable import DropTrackStore

/// A real SQLite store whose writing transactions fail, while told to, as they fail on a full disk: the
/// body runs (its reads and writes reach the engine), then a transaction that changed a row throws
/// `database or disk is full` and SQLite rolls it back; one that only read commits, as reads do on a
/// full disk. What the server did inside a refused transaction must leave no trace.
package final class FullDiskStore: DeliveryStore {
    private let base: any DeliveryStore
    private let condition = Mutex<(@Sendable () -> Bool)?>(nil)
    private let refusedCount = Atomic<Int>(0)

    /// Wraps a SQLite store (`StoreEngine.sqlite.make()`).
    package init(wrapping base: any DeliveryStore) { self.base = base }

    package var description: String { "full-disk(\(base))" }

    /// From now on, every transaction fails while `full` answers true.
    package func fail(while full: @escaping @Sendable () -> Bool) { condition.withLock { $0 = full } }

    /// Space is freed: transactions commit again.
    package func heal() { condition.withLock { $0 = nil } }

    /// Transactions refused so far.
    package var refused: Int { refusedCount.load(ordering: .relaxed) }

    package func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        let full = condition.withLock { $0 }
        return try base.transaction { tx in
            let changes = { try (tx as? SQLTransaction)?.query("SELECT total_changes()").first?.int(0) ?? 0 }
            let before = try changes()
            let result = try body(tx)
            if let full, try changes() != before, full() {
                refusedCount.add(1, ordering: .relaxed)
                throw StoreError(.engine, "database or disk is full")
            }
            return result
        }
    }
}
