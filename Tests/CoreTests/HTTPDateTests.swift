import DropTrackCore
import Foundation
import Testing

@Suite("HTTP Date headers (IMF-fixdate)")
struct HTTPDateTests {
    @Test("RFC 9110's example reads as its moment, and formats back to the same text")
    func example() throws {
        let text = "Sun, 06 Nov 1994 08:49:37 GMT"
        let date = try #require(HTTPDate.parse(text))
        #expect(date.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.format(date) == text)
    }

    @Test(
        "format and parse agree across leap years, month ends and the epoch",
        arguments: [
            0, 951_782_400, 1_709_164_800, 1_735_689_599, 1_796_057_710, 4_102_444_800,
        ])
    func roundTrip(seconds: Int) throws {
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        let text = HTTPDate.format(date)
        #expect(text.count == 29, "\(text)")
        #expect(HTTPDate.parse(text) == date, "\(text)")
    }

    @Test("leap days, the turn of a century and a moment before 1970 are written as the calendar has them")
    func knownDates() {
        let expected: [(Double, String)] = [
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"), (1_709_164_800, "Thu, 29 Feb 2024 00:00:00 GMT"),
            (4_102_444_800, "Fri, 01 Jan 2100 00:00:00 GMT"), (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
        ]
        for (seconds, text) in expected {
            #expect(HTTPDate.format(Date(timeIntervalSince1970: seconds)) == text)
            #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: seconds))
        }
    }

    @Test(
        "anything but an IMF-fixdate is refused",
        arguments: [
            "", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nox 1994 08:49:37 GMT", "Sun, 36 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
            "Sun, 0x Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08x49x37 GMT", "Sun, 06-Nov-1994 08:49:37 GMT",
        ])
    func refused(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
