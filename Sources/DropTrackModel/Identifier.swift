/// The rule for the ids the API takes from callers and later matches or puts in a path: app ids,
/// activity ids (in `/v1/activities/{id}`), user ids, device ids and attributes types. 1 to 128
/// characters from `A-Z a-z 0-9 . _ : -`, and not `.` or `..` (which clients resolve away as path
/// segments). An id that may hold `/`, NUL or a percent sign could be created and never reached
/// again, and one that may hold any Unicode could look like another.
public enum Identifier {
    /// The longest id, in characters (each one byte).
    public static let maximumLength = 128
    /// The rule, as error messages and docs/reference/api-overview.md state it.
    public static let rule = "1 to 128 characters from A-Z a-z 0-9 . _ : - (not '.' or '..')"

    /// Whether `text` is an id by the rule.
    public static func isValid(_ text: String) -> Bool { firstProblem(text) == nil }

    /// Refuses (400 `invalid_field`, naming `field`) a text that is not an id by the rule.
    public static func check(_ text: String, field: String) throws(Refusal) {
        if let problem = firstProblem(text) {
            throw Refusal.invalid(field, "'\(field)' \(problem); an id is \(rule)")
        }
    }

    static func firstProblem(_ text: String) -> String? {
        let bytes = text.utf8
        if bytes.isEmpty { return "is empty" }
        if text == "." || text == ".." { return "is '\(text)'" }
        for (position, scalar) in text.unicodeScalars.enumerated() where !allowed(scalar) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "has U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex) at character \(position + 1)"
        }
        if bytes.count > maximumLength { return "has \(bytes.count) characters" }
        return nil
    }

    private static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", ".", "_", ":", "-": true
        default: false
        }
    }
}
