internal import CLibPQ
import Foundation
import Synchronization

/// Up to `size` connections, opened when first needed and reused most-recent first. A transaction holds
/// one for its duration; when all are busy, callers wait up to `acquireTimeout`.
final class PostgresConnectionPool: Sendable {
    private let available: DispatchSemaphore
    private let idle = Mutex<[PostgresConnection]>([])
    private let target: PostgresURL
    private let acquireTimeout: Duration
    private let statementTimeout: Duration
    let size: Int

    init(target: PostgresURL, size: Int, acquireTimeout: Duration, statementTimeout: Duration) {
        self.target = target
        self.size = size
        self.acquireTimeout = acquireTimeout
        self.statementTimeout = statementTimeout
        available = DispatchSemaphore(value: size)
    }

    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let (seconds, attoseconds) = acquireTimeout.components
        let wait = Double(seconds) + Double(attoseconds) / 1e18
        guard available.wait(timeout: .now() + wait) == .success else {
            throw StoreError(
                .unavailable,
                "all \(size) connections to \(target.redacted) stayed busy for \(acquireTimeout); retry later, or give the pool more connections"
            )
        }
        defer { available.signal() }
        let connection =
            try idle.withLock { $0.popLast() } ?? PostgresConnection(target, statementTimeout: statementTimeout)
        // A connection goes back only when it is healthy and outside any transaction; a broken one is
        // closed here, and the next transaction opens a fresh one.
        defer { if connection.isReusable { idle.withLock { $0.append(connection) } } }
        return try body(connection)
    }
}

/// One libpq connection and its prepared statements. The pool lends it to one transaction at a time,
/// so it is never used from two threads at once (libpq connections must not be shared).
final class PostgresConnection: SQLConnection, @unchecked Sendable {
    private let handle: OpaquePointer
    private let target: PostgresURL
    private let statementTimeoutMilliseconds: Int64
    /// SQL text → server-side prepared statement name. Prepared statements live as long as the
    /// server session, so a reconnect forgets them.
    private var statements: [String: String] = [:]
    /// The store's fixed statements number about 30; IN lists make one statement per length, so past
    /// this many the rest run unnamed (parsed each time) instead of piling up plans in the server.
    private static let preparedStatementLimit = 64
    let dialect = SQLDialect.postgres

    /// Type OIDs from PostgreSQL's `pg_type` catalog (the server headers that name them are not in libpq-dev).
    private static let integerTypes: Set<Oid> = [20, 21, 23, 26]  // int8, int2, int4, oid
    private static let floatTypes: Set<Oid> = [700, 701, 1700]  // float4, float8, numeric

    /// Serialises migrations of one database across processes (the key is arbitrary but fixed: "DROPTRK").
    private static let migrationLock: Int64 = 0x44_52_4F_50_54_52_4B

    init(_ target: PostgresURL, statementTimeout: Duration) throws {
        self.target = target
        let (seconds, attoseconds) = statementTimeout.components
        statementTimeoutMilliseconds = max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        // Earlier keywords are defaults the URL may override: expand_dbname = 1 expands the URL in place.
        // Both lists end with NULL.
        // TCP keepalives find a database host that vanished without closing the socket in about a minute.
        let keywords: [String?] = [
            "connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count",
            "fallback_application_name", "dbname", nil,
        ]
        let values: [String?] = ["5", "1", "30", "10", "3", "droptrack", target.url, nil]
        let opened = Self.withCStrings(keywords) { keywords in
            Self.withCStrings(values) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let opened else { throw StoreError(.unavailable, "cannot connect to \(target.redacted): out of memory") }
        guard PQstatus(opened) == CONNECTION_OK else {
            let message = target.scrub(String(cString: PQerrorMessage(opened)))
            PQfinish(opened)
            throw StoreError(.unavailable, "cannot connect to \(target.redacted): \(message)")
        }
        handle = opened
        try configureSession()
    }

    deinit { PQfinish(handle) }

    /// Statements are prepared once per connection, often while the tables are still small. A generic
    /// plan made then (a sequential scan of an empty table) would be kept as they grow: a token
    /// import's lookups took 200 ms each at 100k rows. Custom plans cost a little planning per call.
    private func configureSession() throws {
        try run("SET plan_cache_mode = force_custom_plan")
        try run("SET statement_timeout = \(statementTimeoutMilliseconds)")
    }

    /// Healthy and outside a transaction: safe to lend again.
    var isReusable: Bool { PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE }

    private var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Reopens the connection with the same settings.
    private func reconnect() throws {
        statements.removeAll()
        PQreset(handle)
        guard !isBroken else {
            throw StoreError(
                .unavailable,
                "lost the connection to \(target.redacted) and cannot reconnect: \(target.scrub(String(cString: PQerrorMessage(handle)))); retry later"
            )
        }
        try configureSession()
    }

    /// Starts a transaction. A connection the server dropped while it sat idle is only noticed now;
    /// nothing has run on it yet, so it is reopened and `BEGIN` tried once more.
    func begin() throws {
        if isBroken { try reconnect() }
        do {
            try run("BEGIN")
        } catch let error as StoreError where error.code == .unavailable {
            try reconnect()
            try run("BEGIN")
        }
    }

    /// Commits; a transaction PostgreSQL had already aborted comes back as a failure, not a silent rollback.
    func commit() throws {
        guard let result = PQexec(handle, "COMMIT") else { throw failure(nil, committing: true) }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result, committing: true) }
        let tag = String(cString: PQcmdStatus(result))
        guard tag == "COMMIT" else {
            throw StoreError(.engine, "PostgreSQL rolled the transaction back (it answered \(tag) to COMMIT)")
        }
    }

    /// Rolls back what can be; a broken connection has nothing left to roll back (the server did).
    func rollBack() {
        guard !isBroken, PQtransactionStatus(handle) != PQTRANS_IDLE else { return }
        try? run("ROLLBACK")
    }

    /// Creates or upgrades the schema. PostgreSQL has no `user_version`, so the version lives in a
    /// one-row table; a database newer than this program is refused, as SQLite does.
    func migrate() throws {
        try run("BEGIN")
        do {
            // Waiting for another replica's migration, or building an index, may take longer than a
            // statement is otherwise allowed.
            try run("SET LOCAL statement_timeout = 0")
            try run("SELECT pg_advisory_xact_lock(\(Self.migrationLock))")
            try run(
                "CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)"
            )
            let version = Int(try query("SELECT version FROM schema_version WHERE id = 1", []).first?.int(0) ?? 0)
            if version > SQLSchema.version {
                throw StoreError(
                    .schemaTooNew,
                    "the database has schema \(version); this droptrack knows \(SQLSchema.version): upgrade droptrack")
            }
            if version < SQLSchema.version {
                for statement in SQLSchema.migration(for: .postgres, from: version) { try run(statement) }
                try execute(
                    """
                    INSERT INTO schema_version (id, version) VALUES (1, $1)
                    ON CONFLICT (id) DO UPDATE SET version = excluded.version
                    """, [.int(Int64(SQLSchema.version))])
            }
            try commit()
        } catch {
            rollBack()
            throw error
        }
    }

    /// Runs SQL without parameters or rows (transaction control, DDL).
    func run(_ sql: String) throws {
        guard let result = PQexec(handle, sql) else { throw failure(nil) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result) }
    }

    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] {
        try withResult(sql, parameters) { result in
            let rowCount = PQntuples(result)
            let columnCount = PQnfields(result)
            let types = (0..<columnCount).map { PQftype(result, $0) }
            var rows: [SQLRow] = []
            rows.reserveCapacity(Int(rowCount))
            for row in 0..<rowCount {
                var values: [SQLValue] = []
                values.reserveCapacity(Int(columnCount))
                for column in 0..<columnCount {
                    guard PQgetisnull(result, row, column) == 0 else {
                        values.append(.null)
                        continue
                    }
                    let text = String(
                        decoding: UnsafeRawBufferPointer(
                            start: PQgetvalue(result, row, column), count: Int(PQgetlength(result, row, column))),
                        as: UTF8.self)
                    let type = types[Int(column)]
                    if Self.integerTypes.contains(type), let number = Int64(text) {
                        values.append(.int(number))
                    } else if Self.floatTypes.contains(type), let number = Double(text) {
                        values.append(.double(number))
                    } else {
                        values.append(.text(text))
                    }
                }
                rows.append(SQLRow(values: values))
            }
            return rows
        }
    }

    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        try withResult(sql, parameters) { Int(String(cString: PQcmdTuples($0))) ?? 0 }
    }

    /// Runs a statement (prepared once per connection), with every parameter sent as text and typed by
    /// the server from where it is used.
    private func withResult<T>(_ sql: String, _ parameters: [SQLValue], _ read: (OpaquePointer) -> T) throws -> T {
        let name = try prepared(sql)
        let texts = try parameters.map(Self.text)
        let sent = Self.withCStrings(texts) { values in
            PQexecPrepared(handle, name, Int32(texts.count), values, nil, nil, 0)
        }
        guard let result = sent else { throw failure(nil) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else { throw failure(result) }
        return read(result)
    }

    /// The prepared statement's name; "" (the unnamed statement, replaced by the next one) once the
    /// cache is full.
    private func prepared(_ sql: String) throws -> String {
        if let name = statements[sql] { return name }
        let name = statements.count < Self.preparedStatementLimit ? "droptrack_\(statements.count + 1)" : ""
        guard let result = PQprepare(handle, name, sql, 0, nil) else { throw failure(nil) }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw failure(result) }
        if !name.isEmpty { statements[sql] = name }
        return name
    }

    /// A parameter in PostgreSQL's text format (`nil` is NULL).
    private static func text(_ value: SQLValue) throws -> String? {
        switch value {
        case .null: return nil
        case .int(let number): return String(number)
        case .double(let number):
            // Swift prints the shortest text that reads back as the same Double; PostgreSQL spells the
            // special values differently.
            if number.isNaN { return "NaN" }
            if number.isInfinite { return number > 0 ? "Infinity" : "-Infinity" }
            return String(number)
        case .text(let string):
            guard !string.utf8.contains(0) else {
                throw StoreError(.engine, "PostgreSQL text cannot hold a NUL character; refusing to truncate it")
            }
            return string
        }
    }

    /// What a failed call means for the caller: a unique violation, or a transaction PostgreSQL rolled
    /// back to resolve a conflict (serialization failure, deadlock), is a `conflict` to retry; a lost
    /// connection or a server shutting down is `unavailable`; anything else is the engine's error.
    private func failure(_ result: OpaquePointer?, committing: Bool = false) -> StoreError {
        let state = result.flatMap { PQresultErrorField($0, clibpq_diag_sqlstate) }.map { String(cString: $0) }
        let primary = result.flatMap { PQresultErrorField($0, clibpq_diag_message_primary) }.map {
            String(cString: $0)
        }
        let message = target.scrub(primary ?? String(cString: PQerrorMessage(handle)))
        switch state {
        case "23505":
            return StoreError(.conflict, message)
        case "40001", "40P01":
            return StoreError(.conflict, "\(message) (PostgreSQL rolled the transaction back; retry it)")
        case "57014":
            return StoreError(
                .unavailable,
                "\(message): a statement ran past the \(statementTimeoutMilliseconds) ms statement timeout (the database is overloaded, or another session holds a lock it needs); retry later"
            )
        default:
            let shuttingDown = ["57P01", "57P02", "57P03"].contains(state ?? "")
            guard isBroken || shuttingDown || state?.hasPrefix("08") == true else {
                return StoreError(.engine, state.map { "\(message) (SQLSTATE \($0))" } ?? message)
            }
            let outcome =
                committing
                ? "the commit's outcome is unknown" : "the transaction was not committed"
            return StoreError(
                .unavailable,
                "lost the connection to \(target.redacted) (\(message)); \(outcome); the next transaction reconnects, retry"
            )
        }
    }

    /// Calls `body` with C strings for `strings` (NULL for `nil`), alive for the duration of the call.
    private static func withCStrings<T>(
        _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T
    ) -> T {
        var bytes: [CChar] = []
        var offsets: [Int?] = []
        for string in strings {
            guard let string else {
                offsets.append(nil)
                continue
            }
            offsets.append(bytes.count)
            bytes.append(contentsOf: string.utf8.map { CChar(bitPattern: $0) })
            bytes.append(0)
        }
        return bytes.withUnsafeBufferPointer { buffer in
            let pointers = offsets.map { offset in offset.map { UnsafePointer(buffer.baseAddress! + $0) } }
            return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
        }
    }
}
