import DropTrackCore
import DropTrackModel
import DropTrackStore
import Foundation
import Synchronization

/// Whether the store takes writes, as the last writes found: what `/readyz` answers from. A full disk
/// lets reads through and refuses every write, so a read (what readiness checked before) said ready
/// while every API write got 503, and a load balancer kept sending writes to that server.
///
/// A refused write marks the store refusing; a write that commits afterwards (the dispatcher's, or the
/// probe `/readyz` runs while the store is marked) clears it, so readiness comes back once space is freed.
public final class StoreWriteHealth: Sendable {
    /// The first refusal since the store last took a write.
    public struct Refusal: Sendable, Equatable {
        /// When the store first refused.
        public var since: Date
        /// What was being written (`api`, `record_outcomes`, `claim`, …).
        public var operation: String
        /// The engine's words (`database or disk is full`).
        public var error: String
    }

    /// How often `/readyz` may probe a store marked refusing: it is polled, and a probe is a write.
    static let probeInterval: Duration = .seconds(1)

    private let state = Mutex<(refusal: Refusal?, lastProbe: ContinuousClock.Instant?)>((nil, nil))
    private let logger: Logger

    /// Creates a tracker that finds the store taking writes; it logs when the store starts refusing
    /// writes (`store.writes_refused`, an error) and when it takes them again (`store.writes_accepted`).
    public init(logger: Logger = .disabled) { self.logger = logger.with(["component": "store"]) }

    /// The refusal in force, if the store refused a write and has taken none since.
    public var refusal: Refusal? { state.withLock { $0.refusal } }

    /// Whether `error` says the store cannot write (rather than a lost race, which a retry settles,
    /// or a refusal by the domain, which is the caller's).
    public static func isStoreFailure(_ error: any Error) -> Bool {
        guard let error = error as? StoreError else { return false }
        return error.code != .conflict
    }

    /// A write failed: the store is refusing from now on, unless the error was no store failure.
    public func writeFailed(operation: String, error: any Error, at now: Date) {
        guard Self.isStoreFailure(error) else { return }
        markRefused(operation: operation, error: (error as? StoreError)?.message ?? "\(error)", at: now)
    }

    /// A write was refused by the store, as a caller that already knows it says (the API's 503 `store_unavailable`).
    public func markRefused(operation: String, error: String, at now: Date) {
        let first = state.withLock { state in
            guard state.refusal == nil else { return false }
            state.refusal = Refusal(since: now, operation: operation, error: error)
            return true
        }
        guard first else { return }
        logger.error(
            "store.writes_refused",
            [
                "operation": operation, "error": error,
                "fix":
                    "free disk space (or repair the database); /readyz answers 503 meanwhile and 200 again once a write succeeds, with no restart",
            ])
    }

    /// A write committed: the store takes writes again.
    public func writeCommitted() {
        let refusal = state.withLock { state in
            defer { state.refusal = nil }
            return state.refusal
        }
        guard let refusal else { return }
        logger.notice(
            "store.writes_accepted",
            ["refused_since": refusal.since.formatted(Date.ISO8601FormatStyle()), "operation": refusal.operation])
    }

    /// Readiness: nil when the store takes writes; otherwise why not. While marked refusing, at most
    /// once per `probeInterval` it runs `probe` (a write that keeps nothing), and a probe that commits
    /// clears the mark.
    public func check(now: ContinuousClock.Instant = .now, probe: () throws -> Void) -> Refusal? {
        let due: Bool = state.withLock { state in
            guard state.refusal != nil else { return false }
            if let last = state.lastProbe, now - last < Self.probeInterval { return false }
            state.lastProbe = now
            return true
        }
        if due {
            do {
                try probe()
                writeCommitted()
            } catch {}
        }
        return refusal
    }
}
