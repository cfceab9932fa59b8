import Foundation

/// The JSON object of one log line, written by hand: `JSONSerialization`'s `.sortedKeys` compares
/// keys under an `en_US_POSIX` `Locale` and `Date.ISO8601FormatStyle` builds a `Calendar` and the
/// current `TimeZone`, and either loads ICU's locale and zone tables on the first line a server
/// logs (about 4 MiB resident at idle, docs/explanation/scaling.md "Idle footprint"). A log line needs
/// neither: its keys are ASCII and its time is UTC.
public enum LogLine {
    /// `object` as one line of JSON (no newline): keys in code-point order, slashes not escaped,
    /// control characters as `\u00XX`.
    public static func encode(_ object: [String: String]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(128)
        for (index, key) in object.keys.sorted().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            appendString(object[key] ?? "", to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `date` as RFC 3339 UTC with milliseconds (`2026-12-02T03:39:49.117Z`), each part rounded
    /// down as `Date.ISO8601FormatStyle` does: whole seconds first, then the fraction left over.
    public static func timestamp(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let wholeSeconds = interval.rounded(.down)
        let milliseconds = min(999, Int(((interval - wholeSeconds) * 1000).rounded(.down)))
        let seconds = Int(wholeSeconds)
        let days = Int((wholeSeconds / 86_400).rounded(.down))
        let inDay = seconds - days * 86_400
        let (year, month, day) = HTTPDate.civil(fromDays: days)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(inDay / 3600, 2)):"
            + "\(padded(inDay / 60 % 60, 2)):\(padded(inDay % 60, 2)).\(padded(milliseconds, 3))Z"
    }

    private static func appendString(_ text: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0a: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0d: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0f)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
