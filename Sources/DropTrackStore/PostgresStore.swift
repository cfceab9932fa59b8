internal import CLibPQ
import DropTrackContract
import Foundation
import Synchronization

/// PostgreSQL, for several DropTrack servers sharing one database. Claims take outbox rows with
/// `FOR UPDATE SKIP LOCKED`, so replicas never lease the same row, and a transaction that updates an
/// activity locks it when it reads it (`activityForUpdate`), so versions and timestamps stay monotonic
/// across replicas. Transactions run at READ COMMITTED.
///
/// Each process keeps a bounded pool of connections, opened when first needed. A transaction holds one
/// connection from `BEGIN` to `COMMIT`; when every connection is busy, it waits a bounded time. A
/// connection the server dropped (restart, failover, `pg_terminate_backend`) is reopened: before `BEGIN`
/// that happens silently, and during a transaction the transaction fails with `StoreError.unavailable`,
/// which callers retry (the API answers 503, the dispatcher's leases run out and the rows come back).
public final class PostgresStore: DeliveryStore {
    private let pool: PostgresConnectionPool
    private let target: PostgresURL

    /// Connects, and creates or upgrades the schema (several replicas may start at once: migrations
    /// take a database-wide advisory lock).
    /// - Parameters:
    ///   - url: `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (or `postgresql://`). libpq parses it,
    ///     so its query parameters work too (`?sslmode=require`, `?options=-csearch_path%3Dschema`).
    ///   - poolSize: the most connections this process opens.
    ///   - acquireTimeout: how long a transaction waits for a free connection before failing with
    ///     `StoreError.unavailable`.
    ///   - statementTimeout: the longest one statement may run (PostgreSQL's `statement_timeout`);
    ///     past it the statement fails with `StoreError.unavailable`. DropTrack's statements are short
    ///     (bulk writes go in runs of at most 256 rows), so a long one means a database in trouble.
    /// - Throws: `StoreError` `.unavailable` when the server cannot be reached, `.engine` for a URL
    ///   libpq cannot parse or a failed migration, `.schemaTooNew` when the database was migrated by a
    ///   newer DropTrack. Messages never contain the password.
    public init(
        url: String, poolSize: Int = 8, acquireTimeout: Duration = .seconds(10),
        statementTimeout: Duration = .seconds(60)
    ) throws {
        guard poolSize > 0 else {
            throw StoreError(.engine, "the PostgreSQL pool size must be at least 1, not \(poolSize)")
        }
        target = try PostgresURL(url)
        pool = PostgresConnectionPool(
            target: target, size: poolSize, acquireTimeout: acquireTimeout, statementTimeout: statementTimeout)
        try pool.withConnection { try $0.migrate() }
    }

    /// The URL with the password replaced by `***`.
    public var description: String { target.redacted }

    public func transaction<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        let (result, committed) = try pool.withConnection { connection in
            try connection.begin()
            do {
                let transaction = SQLTransaction(connection: connection)
                let result = try body(transaction)
                try connection.commit()
                return (result, transaction.committedActions)
            } catch {
                connection.rollBack()
                throw error
            }
        }
        for action in committed { action() }
        return result
    }

    /// `url` with its password (in the user part or a `password=` parameter) replaced by `***`: what
    /// to print instead of a connection URL. Text that is not a URL comes back unchanged.
    public static func redactingPassword(in url: String) -> String { PostgresURL.redact(url) }
}

/// A connection URL that libpq accepted, the same URL safe to print, and what to scrub from messages.
struct PostgresURL: Sendable {
    let url: String
    let redacted: String
    /// The password as written in the URL and decoded: neither may appear in an error message.
    private let secrets: [String]

    init(_ url: String) throws {
        self.url = url
        redacted = Self.redact(url)
        var secrets = Self.passwordSpans(in: url).map { String(url[$0]) }
        secrets += secrets.compactMap { $0.removingPercentEncoding }
        var error: UnsafeMutablePointer<CChar>? = nil
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://"),
            let options = PQconninfoParse(url, &error)
        else {
            let reason = error.map { String(cString: $0) } ?? "it does not start with postgres:// or postgresql://"
            PQfreemem(error)
            let scrubbed = secrets.filter { !$0.isEmpty }.reduce(reason) {
                $0.replacingOccurrences(of: $1, with: "***")
            }
            throw StoreError(
                .engine,
                "\(redacted) is not a PostgreSQL URL libpq accepts (postgres://USER:PASSWORD@HOST:PORT/DATABASE): "
                    + scrubbed.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", let value = option.pointee.val {
                secrets.append(String(cString: value))
            }
            option += 1
        }
        self.secrets = secrets.filter { !$0.isEmpty }
    }

    /// `message` with every form of the password replaced by `***`.
    func scrub(_ message: String) -> String {
        secrets.reduce(message) { $0.replacingOccurrences(of: $1, with: "***") }
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func redact(_ url: String) -> String {
        var redacted = url
        for span in passwordSpans(in: url).reversed() { redacted.replaceSubrange(span, with: "***") }
        return redacted
    }

    /// Where passwords sit in a URL: after the first `:` of the user part, and in `password=` parameters.
    /// The user part ends at the last `@`, so a password with an unencoded `@` is still covered (this may
    /// hide more than the password, never less).
    private static func passwordSpans(in url: String) -> [Range<String.Index>] {
        guard let scheme = url.range(of: "://") else { return [] }
        var spans: [Range<String.Index>] = []
        var queryStart = scheme.upperBound
        if let at = url[scheme.upperBound...].lastIndex(of: "@") {
            if let colon = url[scheme.upperBound..<at].firstIndex(of: ":") {
                spans.append(url.index(after: colon)..<at)
            }
            queryStart = at
        }
        var search = queryStart..<url.endIndex
        while let key = url.range(of: "password=", range: search) {
            let end = url[key.upperBound...].firstIndex(of: "&") ?? url.endIndex
            if key.upperBound < end { spans.append(key.upperBound..<end) }
            search = end..<url.endIndex
        }
        return spans
    }
}
