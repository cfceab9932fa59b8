import DropTrackCore
import Foundation
import Testing

@Suite("Content dates: one window and one strict ISO-8601 reader")
struct ContentDatesTests {
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
