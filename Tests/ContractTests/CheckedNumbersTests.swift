import DropTrackContract
import Foundation
import Testing

@Suite("Checked conversions and content dates")
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

    @Test("ISO-8601 dates: real calendar dates and times only, with offsets, fractions and leap days")
    func iso8601() throws {
        let reference = try #require(ContentDates.parseISO8601("2026-12-01T10:30:00Z"))
        #expect(reference.timeIntervalSince1970 == 1_796_121_000)
        #expect(ContentDates.parseISO8601("2026-12-01T11:30:00+01:00") == reference)
        #expect(ContentDates.parseISO8601("2026-12-01T05:00:00-0530") == reference)
        #expect(ContentDates.parseISO8601("2026-12-01T10:30:00.250Z")?.timeIntervalSince1970 == 1_796_121_000.25)
        #expect(ContentDates.parseISO8601("1970-01-01T00:00:00Z")?.timeIntervalSince1970 == 0)
        #expect(ContentDates.parseISO8601("2028-02-29T00:00:00Z") != nil, "2028 is a leap year")
        #expect(ContentDates.parseISO8601("2000-02-29T00:00:00Z") != nil, "2000 is a leap year")
        for text in [
            "2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z",
            "2026-00-10T00:00:00Z", "2026-04-31T00:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01T10:60:00Z",
            "2026-12-01T10:30:60Z", "2026-12-01T10:30:00", "2026-12-01", "2026-12-01T10:30:00+19:00",
            "2026-12-01T10:30:00.Z", "+275760-09-13T00:00:00Z", "2026-12-01T10:30:00Zjunk", "",
        ] {
            #expect(ContentDates.parseISO8601(text) == nil, "\(text)")
        }
    }

    @Test("the window holds 1970 to 2040 in seconds since 2001, and nothing non-finite")
    func window() {
        #expect(ContentDates.contains(referenceSeconds: 0))
        #expect(ContentDates.contains(referenceSeconds: -978_307_200))
        #expect(!ContentDates.contains(referenceSeconds: -978_307_201))
        #expect(ContentDates.contains(referenceSeconds: 1.25e9) && !ContentDates.contains(referenceSeconds: 1.25e9 + 1))
        #expect(!ContentDates.contains(referenceSeconds: .nan) && !ContentDates.contains(referenceSeconds: -.infinity))
    }
}
