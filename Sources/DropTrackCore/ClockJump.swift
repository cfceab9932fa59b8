import Foundation

/// Notices the wall clock jumping: between two readings it moved more, or less, than the monotonic
/// clock did. NTP stepping a clock that was far off, an operator's `date -s`, a VM resumed from a
/// snapshot. What stamps things for others (a JWT's `iat`) takes the wall clock; what measures ages
/// here takes the monotonic one, and a jump is worth a warning because the stamps are now off.
public struct WallClockJumpDetector: Sendable, Equatable {
    /// A disagreement larger than this is a jump; NTP's slewing moves both clocks alike, far below it.
    public static let threshold: TimeInterval = 60
    /// Readings further apart than this start a new reference, so slow drift never adds up to a jump.
    static let rebase: Duration = .seconds(3600)

    private var referenceWall: Date?
    private var referenceMonotonic: ContinuousClock.Instant?

    /// Creates a detector; the first reading becomes the reference.
    public init() {}

    /// Compares this reading with the reference: returns how many seconds the wall clock jumped
    /// (positive forward) when the disagreement exceeds `threshold`, and nil otherwise. A jump, or a
    /// reference an hour old, makes this reading the new reference, so one jump is reported once.
    public mutating func observe(wall: Date, monotonic: ContinuousClock.Instant) -> TimeInterval? {
        guard let referenceWall, let referenceMonotonic else {
            (self.referenceWall, self.referenceMonotonic) = (wall, monotonic)
            return nil
        }
        let elapsed = monotonic - referenceMonotonic
        let (seconds, attoseconds) = elapsed.components
        let monotonicSeconds = Double(seconds) + Double(attoseconds) / 1e18
        let jump = wall.timeIntervalSince(referenceWall) - monotonicSeconds
        let isJump = abs(jump) > Self.threshold
        if isJump || elapsed > Self.rebase { (self.referenceWall, self.referenceMonotonic) = (wall, monotonic) }
        return isJump ? jump : nil
    }
}
