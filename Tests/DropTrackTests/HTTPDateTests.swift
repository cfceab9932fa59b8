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

    @Test(
        "anything but an IMF-fixdate is refused",
        arguments: [
            "", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nox 1994 08:49:37 GMT", "Sun, 36 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
            "Sun, 0x Nov 1994 08:49:37 GMT",
        ])
    func refused(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
