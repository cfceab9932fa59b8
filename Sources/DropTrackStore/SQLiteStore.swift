internal import CSQLite
import DropTrackContract
import Foundation
import Synchronization

/// The embedded default: one SQLite file in WAL mode, migrations applied at open. One connection,
/// serialised by a lock; write transactions are `BEGIN IMMEDIATE`, so they never deadlock on upgrade.
public final class SQLiteStore: DeliveryStore {
    private let connection: Mutex<SQLiteConnection>
    private let path: String

    /// Opens (creating if needed) the database at `path`; `:memory:` works for tests.
    public init(path: String) throws {
        self.path = path
        let connection = try SQLiteConnection(path: path)
        try connection.migrate()
        self.connection = Mutex(connection)
    }

    public var description: String { "sqlite:\(path)" }

    public func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        let (result, committed) = try connection.withLock { connection in
            try connection.run("BEGIN IMMEDIATE")
            do {
                let transaction = SQLTransaction(connection: connection)
                let result = try body(transaction)
                try connection.run("COMMIT")
                return (result, transaction.committedActions)
            } catch {
                try? connection.run("ROLLBACK")
                throw error
            }
        }
        for action in committed { action() }
        return result
    }
}

/// One SQLite connection with a cache of prepared statements.
final class SQLiteConnection: SQLConnection, @unchecked Sendable {
    // Used only under SQLiteStore's lock.
    private let db: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    let dialect = SQLDialect.sqlite

    init(path: String) throws {
        if !path.isEmpty && path != ":memory:" && !path.hasPrefix("file:") { Self.makeOwnerOnly(path) }
        var handle: OpaquePointer? = nil
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw StoreError(.engine, "cannot open SQLite database \(path): \(message)")
        }
        db = handle
        sqlite3_busy_timeout(db, 5000)
        try run("PRAGMA journal_mode = WAL")
        try run("PRAGMA synchronous = NORMAL")
        try run("PRAGMA foreign_keys = ON")
    }

    /// The database and its WAL hold raw device tokens: owner-only (0600) whatever the umask. SQLite
    /// creates `-wal` and `-shm` with the main file's mode, so creating the main file 0600 before
    /// SQLite opens it covers them; files an older droptrack left readable by others are tightened.
    /// Failures are left to `sqlite3_open_v2`, which names them.
    static func makeOwnerOnly(_ path: String) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        var status = stat()
        if fstat(fd, &status) == 0 && status.st_mode & 0o077 != 0 { fchmod(fd, 0o600) }
        close(fd)
        for suffix in ["-wal", "-shm"] where stat(path + suffix, &status) == 0 && status.st_mode & 0o077 != 0 {
            chmod(path + suffix, 0o600)
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    func migrate() throws {
        let version = Int(try query("PRAGMA user_version", []).first?.int(0) ?? 0)
        if version > SQLSchema.version {
            throw StoreError(
                .schemaTooNew,
                "the database has schema \(version); this droptrack knows \(SQLSchema.version): upgrade droptrack")
        }
        guard version < SQLSchema.version else { return }
        try run("BEGIN IMMEDIATE")
        do {
            for statement in SQLSchema.migration(for: .sqlite, from: version) { try run(statement) }
            try run("PRAGMA user_version = \(SQLSchema.version)")
            try run("COMMIT")
        } catch {
            try? run("ROLLBACK")
            throw error
        }
    }

    /// Runs SQL without parameters or results (pragmas, BEGIN/COMMIT).
    func run(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>? = nil
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard rc == SQLITE_OK else {
            throw error(rc, message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db)))
        }
    }

    private func error(_ rc: Int32, _ message: String) -> StoreError {
        (rc & 0xFF) == SQLITE_CONSTRAINT ? StoreError(.conflict, message) : StoreError(.engine, message)
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer? = nil
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw StoreError(.engine, "cannot prepare SQL: \(String(cString: sqlite3_errmsg(db)))")
        }
        statements[sql] = statement
        return statement
    }

    private func bind(_ statement: OpaquePointer, _ parameters: [SQLValue]) {
        for (index, value) in parameters.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .null: sqlite3_bind_null(statement, position)
            case .int(let number): sqlite3_bind_int64(statement, position, number)
            case .double(let number): sqlite3_bind_double(statement, position, number)
            case .text(let text):
                var text = text
                text.withUTF8 { bytes in
                    _ = bytes.withMemoryRebound(to: CChar.self) {
                        csqlite_bind_text_transient(statement, position, $0.baseAddress, Int32(bytes.count))
                    }
                }
            }
        }
    }

    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        bind(statement, parameters)
        var rows: [SQLRow] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else {
                throw error(sqlite3_extended_errcode(db), String(cString: sqlite3_errmsg(db)))
            }
            let count = sqlite3_column_count(statement)
            var values: [SQLValue] = []
            values.reserveCapacity(Int(count))
            for column in 0..<count {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: values.append(.int(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: values.append(.double(sqlite3_column_double(statement, column)))
                case SQLITE_NULL: values.append(.null)
                default:
                    let length = Int(sqlite3_column_bytes(statement, column))
                    if let text = sqlite3_column_text(statement, column) {
                        values.append(
                            .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self)))
                    } else {
                        values.append(.text(""))
                    }
                }
            }
            rows.append(SQLRow(values: values))
        }
        return rows
    }

    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        try query(sql, parameters)
        return Int(sqlite3_changes(db))
    }
}
