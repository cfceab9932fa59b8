/// A storage failure. `conflict` is a unique-constraint violation or another write PostgreSQL
/// refused because a concurrent transaction won (two writers raced); `unavailable` means the engine
/// could not be reached; `corruptRow` is a stored row that cannot be read back as a record; the rest
/// are the engine's own errors, with its message. All but `schemaTooNew` and `corruptRow` may
/// succeed when the transaction is tried again.
public struct StoreError: Error, Equatable, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// A unique constraint refused the write.
        public static let conflict = Code("conflict")
        /// The engine failed (disk, corruption, a statement it refused).
        public static let engine = Code("engine")
        /// The engine could not be reached: the connection was lost (a database restart), or every
        /// pooled connection stayed busy. Retry later; a reconnect happens on the next transaction.
        public static let unavailable = Code("unavailable")
        /// The database schema is newer than this program.
        public static let schemaTooNew = Code("schemaTooNew")
        /// A stored row has a NULL where the record needs a value, a number or date that does not
        /// parse, or a value no case of an enum has; `corruptRow` says which. Trying again reads the
        /// same row: someone must repair or delete it.
        public static let corruptRow = Code("corruptRow")
        public var description: String { name }
    }

    /// Where a `corruptRow` error found the bad value.
    public struct CorruptRow: Sendable, Equatable {
        /// The table: `tokens`, `activities`, `outbox`, `timeline`.
        public var table: String
        /// The column holding the bad value.
        public var column: String
        /// The row's key columns and values (never a raw token: tokens are named by fingerprint).
        public var key: String
        /// What is wrong with the value.
        public var reason: String

        public init(table: String, column: String, key: String, reason: String) {
            self.table = table
            self.column = column
            self.key = key
            self.reason = reason
        }
    }

    public var code: Code
    public var message: String
    /// For `corruptRow`: the table, row and column, so a test or an operator need not parse `message`.
    public var corruptRow: CorruptRow?

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A row that cannot be read back as a record: `column` of the row `key` in `table` is wrong
    /// because of `reason`.
    public static func corruptRow(table: String, column: String, key: String, reason: String) -> StoreError {
        var error = StoreError(
            .corruptRow,
            "\(table) row \(key): column \(column) \(reason); droptrack never writes such a value (a hand edit, "
                + "an outside tool or a damaged disk did): repair the value or delete the row")
        error.corruptRow = CorruptRow(table: table, column: column, key: key, reason: reason)
        return error
    }

    public static func == (a: StoreError, b: StoreError) -> Bool { a.code == b.code }
    public var description: String { "\(code): \(message)" }
}

/// The rows of a list that read as records, and the errors of those that did not (each a `corruptRow`
/// naming its table, row and column): a list page shows the rest and flags these.
public struct Listed<Record: Sendable>: Sendable {
    public var records: [Record]
    public var corrupt: [StoreError]

    public init(records: [Record], corrupt: [StoreError] = []) {
        self.records = records
        self.corrupt = corrupt
    }

    /// Reads each row with `read`, setting aside the ones that are corrupt; any other error is thrown.
    static func reading<Row>(_ rows: [Row], _ read: (Row) throws(StoreError) -> Record) throws(StoreError) -> Listed {
        var listed = Listed(records: [])
        for row in rows {
            do {
                listed.records.append(try read(row))
            } catch  where error.code == .corruptRow {
                listed.corrupt.append(error)
            }
        }
        return listed
    }
}
