import Foundation

/// The dates a content-state may carry, and the one way a caller's date text is read.
///
/// ActivityKit decodes a `Date` from seconds since 2001-01-01. A larger number almost always is a
/// Unix time sent by mistake (it would show about 31 years ahead), so numbers past `latest` are
/// refused, and the same bound holds however the date arrives (a number, ISO-8601 text, a declarative
/// mapper's record), so that one path cannot send what another refuses.
public enum ContentDates {
    /// 1970-01-01T00:00:00Z, in seconds since 2001-01-01: nothing a Live Activity shows is older.
    public static let earliestReferenceSeconds: Double = -978_307_200
    /// 2040-08-11T19:33:20Z, in seconds since 2001-01-01: a later number reads as Unix seconds.
    public static let latestReferenceSeconds: Double = 1.25e9

    /// Whether seconds since 2001-01-01 lie in the window.
    public static func contains(referenceSeconds seconds: Double) -> Bool {
        seconds.isFinite && seconds >= earliestReferenceSeconds && seconds <= latestReferenceSeconds
    }

    /// The window as people read it, for refusals.
    public static let windowText = "from 1970-01-01 to 2040-08-11"

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`, with a real calendar date and time only:
    /// `2026-02-30` or `25:00` is nil, where Foundation's parser rolls them over into another day.
    public static func parseISO8601(_ text: String) -> Date? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
            let day = scanner.digits(2), scanner.take("T") || scanner.take("t"), let hour = scanner.digits(2),
            scanner.take(":"), let minute = scanner.digits(2), scanner.take(":"), let second = scanner.digits(2)
        else { return nil }
        var fraction = 0.0
        if scanner.take(".") {
            var scale = 0.1
            var any = false
            while let digit = scanner.digits(1) {
                fraction += Double(digit) * scale
                scale /= 10
                any = true
            }
            guard any else { return nil }
        }
        var offset = 0
        if scanner.take("Z") || scanner.take("z") {
        } else if let sign = scanner.sign() {
            guard let hours = scanner.digits(2) else { return nil }
            _ = scanner.take(":")
            guard let minutes = scanner.digits(2), hours <= 18, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard scanner.atEnd, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24,
            minute < 60, second < 60
        else { return nil }
        let days = HTTPDate.daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// Reads fixed-width ASCII fields from the front of a byte string.
private struct DigitScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    /// Exactly `count` decimal digits as a number.
    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        index += count
        return value
    }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int? {
        if take("+") { return 1 }
        if take("-") { return -1 }
        return nil
    }
}
