import DropTrackContract
import Foundation
import Testing

@Suite("Checked conversions")
struct CheckedNumbersTests {
    @Test("Int64(checking:) takes the whole part inside the bounds, and nil for NaN, infinity and anything outside")
    func checking() {
        #expect(Int64(checking: 42.9) == 42)
        #expect(Int64(checking: -42.9) == -42)
        #expect(Int64(checking: -0.0) == 0)
        #expect(Int64(checking: 9.2e18) == 9_200_000_000_000_000_000)
        #expect(Int64(checking: 9.3e18) == nil)
        #expect(Int64(checking: 0x1p63) == nil, "2^63 is one past Int64.max")
        #expect(Int64(checking: -0x1p63) == Int64.min)
        #expect(Int64(checking: 1e300) == nil && Int64(checking: -1e300) == nil)
        #expect(Int64(checking: .nan) == nil && Int64(checking: .infinity) == nil)
        #expect(Int(checking: 7, within: 1...5) == nil && Int(checking: 3, within: 1...5) == 3)
        #expect(Int32(checking: 3e9) == nil && UInt8(checking: -1) == nil)
        #expect(Int64(checking: 9_007_199_254_740_994, within: JSONInteger.exactRange) == nil)
    }

    @Test("Int(saturating:) clamps to the type's ends and reads NaN as 0, for figures in messages")
    func saturating() {
        #expect(Int64(saturating: 1e300) == .max && Int64(saturating: -1e300) == .min)
        #expect(Int(saturating: .infinity) == .max && Int(saturating: .nan) == 0)
        #expect(Int(saturating: 59.99) == 59)
    }

    @Test("JSONInteger.text prints whole numbers without a fraction, and others as a Double prints")
    func text() {
        #expect(JSONInteger.text(12) == "12" && JSONInteger.text(-0.0) == "0")
        #expect(JSONInteger.text(0.5) == "0.5")
        #expect(JSONInteger.text(1e19) == "1e+19")
        #expect(JSONInteger.text(9_007_199_254_740_991) == "9007199254740991")
    }
}
