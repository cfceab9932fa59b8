import DropTrackContract
import DropTrackCore
import DropTrackModel
import Foundation

/// A value bound to, or read from, a SQL statement.
public enum SQLValue: Sendable, Equatable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)

    init(_ text: String?) { self = text.map { .text($0) } ?? .null }
    init(_ date: Date?) { self = date.map { .double($0.timeIntervalSince1970) } ?? .null }
    init(_ value: Int64?) { self = value.map { .int($0) } ?? .null }
    init(_ value: Double?) { self = value.map { .double($0) } ?? .null }
    init(json: JSONValue?) { self = json.map { .text(String(decoding: $0.serialized(), as: UTF8.self)) } ?? .null }
}

/// One result row. These accessors are lenient (nil for what does not convert): they serve counts,
/// pragmas and clocks. Records are read through `RowReader`, which refuses what does not convert.
struct SQLRow {
    var values: [SQLValue]

    func text(_ index: Int) -> String? {
        switch values[index] {
        case .text(let value): value
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .null: nil
        }
    }

    func int(_ index: Int) -> Int64? {
        switch values[index] {
        case .int(let value): value
        // `exactly`: a plain conversion traps on NaN and out-of-range values, and truncates fractions.
        case .double(let value): Int64(exactly: value)
        case .text(let value): Int64(value)
        case .null: nil
        }
    }

    func double(_ index: Int) -> Double? {
        switch values[index] {
        case .double(let value): value
        case .int(let value): Double(value)
        case .text(let value): Double(value)
        case .null: nil
        }
    }

    func date(_ index: Int) -> Date? { double(index).map { Date(timeIntervalSince1970: $0) } }
}

/// One row of a table, read as a record: a NULL in a column the record needs, a number or date that
/// does not parse, JSON that does not parse or a value no enum case has throws
/// `StoreError.corruptRow` naming the table, the row and the column. A default in its place would
/// make a damaged row a plausible record (a token of the wrong kind, an activity back to `active`).
struct RowReader {
    let row: SQLRow
    let table: String
    /// The selected columns, in order: the names errors give.
    let columns: [String]
    /// The positions of the key columns, which name the row in errors.
    let keyColumns: [Int]
    /// What names the row when no column does (an aggregate's result).
    var keyWithoutColumns = "(no key)"

    /// The row's key as `column=value, …`. Key columns are never raw tokens (tokens are keyed by
    /// fingerprint), so the text is safe in logs; a fingerprint column that holds something else (a
    /// token written there by mistake) is shown by its length only.
    var key: String {
        guard !keyColumns.isEmpty else { return keyWithoutColumns }
        return keyColumns.map { index in
            guard let text = row.text(index) else { return "\(columns[index])=NULL" }
            if columns[index].hasSuffix("fingerprint"), (try? Fingerprint(validating: text)) == nil {
                return "\(columns[index])=(not a fingerprint, \(text.utf8.count) bytes)"
            }
            return "\(columns[index])=\(Self.quoted(text))"
        }.joined(separator: ", ")
    }

    /// The error for the value at `index`.
    func corrupt(_ index: Int, _ reason: String) -> StoreError {
        StoreError.corruptRow(table: table, column: columns[index], key: key, reason: reason)
    }

    /// How a bad value is shown: quoted, and cut short so a stray blob does not flood a log line.
    static func quoted(_ text: String) -> String {
        text.count <= 40 ? "'\(text)'" : "'\(text.prefix(40))…' (\(text.utf8.count) bytes)"
    }

    private var nullError: (Int) -> StoreError { { corrupt($0, "is NULL, but a record needs a value") } }

    func text(_ index: Int) throws(StoreError) -> String {
        guard let text = optionalText(index) else { throw nullError(index) }
        return text
    }

    /// Nullable text: any value converts (SQLite may hand back a number for a text column).
    func optionalText(_ index: Int) -> String? { row.text(index) }

    func int(_ index: Int) throws(StoreError) -> Int64 {
        guard let value = try optionalInt(index) else { throw nullError(index) }
        return value
    }

    func optionalInt(_ index: Int) throws(StoreError) -> Int64? {
        switch row.values[index] {
        case .null: return nil
        case .int(let value): return value
        case .double(let value):
            guard let exact = Int64(exactly: value) else { throw corrupt(index, "is \(value), not a whole number") }
            return exact
        case .text(let text):
            guard let value = Int64(text) else { throw corrupt(index, "is \(Self.quoted(text)), not a whole number") }
            return value
        }
    }

    func double(_ index: Int) throws(StoreError) -> Double {
        guard let value = try optionalDouble(index) else { throw nullError(index) }
        return value
    }

    /// Finite numbers only: Swift parses "NaN" and "inf", and PostgreSQL stores them in REAL columns.
    func optionalDouble(_ index: Int) throws(StoreError) -> Double? {
        let value: Double
        switch row.values[index] {
        case .null: return nil
        case .int(let number): value = Double(number)
        case .double(let number): value = number
        case .text(let text):
            guard let number = Double(text) else { throw corrupt(index, "is \(Self.quoted(text)), not a number") }
            value = number
        }
        guard value.isFinite else { throw corrupt(index, "is \(value), not a finite number") }
        return value
    }

    /// Dates are stored as Unix seconds.
    func date(_ index: Int) throws(StoreError) -> Date { Date(timeIntervalSince1970: try double(index)) }

    func optionalDate(_ index: Int) throws(StoreError) -> Date? {
        try optionalDouble(index).map { Date(timeIntervalSince1970: $0) }
    }

    /// Booleans are stored as 0 or 1.
    func bool(_ index: Int) throws(StoreError) -> Bool {
        switch try int(index) {
        case 0: return false
        case 1: return true
        case let other: throw corrupt(index, "is \(other), not 0 or 1")
        }
    }

    func json(_ index: Int) throws(StoreError) -> JSONValue {
        guard let value = try optionalJSON(index) else { throw nullError(index) }
        return value
    }

    func optionalJSON(_ index: Int) throws(StoreError) -> JSONValue? {
        guard let text = row.text(index) else { return nil }
        do {
            return try JSONValue.parse(text)
        } catch {
            throw corrupt(index, "is not JSON (\(error)): \(Self.quoted(text))")
        }
    }

    /// A fingerprint column: 16 lowercase hex digits, or the row is corrupt. The text is not repeated
    /// (a token stored there by mistake is a secret).
    func fingerprint(_ index: Int) throws(StoreError) -> Fingerprint {
        let text = try text(index)
        do {
            return try Fingerprint(validating: text)
        } catch {
            throw corrupt(index, "is not a fingerprint: it \(error)")
        }
    }

    /// A cursor column: empty at a pass's start (nil), a fingerprint after.
    func fingerprintOrEmpty(_ index: Int) throws(StoreError) -> Fingerprint? {
        try text(index).isEmpty ? nil : fingerprint(index)
    }

    /// A value of a string enum (`TokenKind`, `ActivityState`, …).
    func value<Value: RawRepresentable>(_ index: Int, as type: Value.Type) throws(StoreError) -> Value
    where Value.RawValue == String {
        guard let value = try optionalValue(index, as: type) else { throw nullError(index) }
        return value
    }

    func optionalValue<Value: RawRepresentable>(_ index: Int, as type: Value.Type) throws(StoreError) -> Value?
    where Value.RawValue == String {
        guard let text = optionalText(index) else { return nil }
        guard let value = Value(rawValue: text) else {
            throw corrupt(index, "is \(Self.quoted(text)), which is no \(Value.self)")
        }
        return value
    }
}
