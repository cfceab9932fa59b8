import Foundation

// Every number a caller sends arrives as a `Double` (JSON has one number type). Swift traps when a
// `Double` that is NaN, infinite or beyond the integer type's range is converted with `Int64(_:)`,
// in release builds too: one request with `1e19` in it would take down the server for every tenant.
// So no caller number is converted that way. These two initialisers are the only conversions: the
// checked one for values that become data (refuse what does not fit, naming the field and its
// bounds), the saturating one for figures in messages and logs (never refuse, never trap).

extension FixedWidthInteger {
    /// The whole part of `value` (rounded toward zero) when `value` is finite and that whole part lies
    /// within `bounds` (the type's whole range when nil); nil otherwise.
    public init?(checking value: Double, within bounds: ClosedRange<Self>? = nil) {
        guard value.isFinite, let whole = Self(exactly: value.rounded(.towardZero)) else { return nil }
        if let bounds, !bounds.contains(whole) { return nil }
        self = whole
    }

    /// The whole part of `value` (rounded toward zero), clamped to the type's range; NaN is 0.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if let whole = Self(checking: value) {
            self = whole
        } else {
            self = value < 0 ? .min : .max
        }
    }
}

/// Whole numbers in JSON bodies.
public enum JSONInteger {
    /// The whole numbers a JSON number carries exactly through this server, which keeps every number
    /// as a `Double` (53 bits): ±(2^53 − 1). A larger one would come out changed.
    public static let exactRange: ClosedRange<Int64> = -9_007_199_254_740_991...9_007_199_254_740_991

    /// `value` as decimal text: a whole number without a fraction when it is one that fits
    /// `exactRange`, otherwise as Swift prints a `Double` (`1e+19`, `0.5`).
    public static func text(_ value: Double) -> String {
        if let whole = Int64(checking: value, within: exactRange), Double(whole) == value { return String(whole) }
        return "\(value)"
    }
}
