import DropTrackStore
import Foundation
import Synchronization

/// The PostgreSQL server the tests use: `DROPTRACK_TEST_POSTGRES_URL`, which `scripts/postgres.sh` starts
/// and prints. With `DROPTRACK_TEST_REQUIRE_POSTGRES=1` (as scripts/test.sh and CI set it), a missing or
/// unreachable server fails the PostgreSQL tests instead of leaving them out.
///
/// The tests of one process share one database, `droptrack_test_<pid>_<random>`, made on first use and
/// dropped when the process exits (scripts/postgres.sh drops those of processes that died first). Each
/// store a test opens gets its own schema in it, so tests running in parallel never see each other's rows.
package enum PostgresTestServer {
    package static let url: String? = ProcessInfo.processInfo.environment["DROPTRACK_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }
    package static let required = ProcessInfo.processInfo.environment["DROPTRACK_TEST_REQUIRE_POSTGRES"] == "1"
    /// Whether the PostgreSQL tests run (and fail when the server is missing).
    package static var enabled: Bool { url != nil || required }
    /// A shell command that restarts the server (`scripts/postgres.sh restart`). Only the restart test
    /// uses it, and it must run alone (`--filter PostgresRestartTests`): a restart breaks every other
    /// test's connections.
    package static let restartCommand: String? = ProcessInfo.processInfo.environment[
        "DROPTRACK_TEST_POSTGRES_RESTART_COMMAND"
    ].flatMap { $0.isEmpty ? nil : $0 }

    package struct Unavailable: Error, CustomStringConvertible {
        package var description: String
    }

    /// This process's database; the error of making it is kept, so every test reports it.
    private static let database: Result<String, Unavailable> = {
        guard let url else {
            return .failure(
                Unavailable(
                    description:
                        "DROPTRACK_TEST_REQUIRE_POSTGRES=1 but DROPTRACK_TEST_POSTGRES_URL is not set: run scripts/postgres.sh and export the line it prints"
                ))
        }
        let name = "droptrack_test_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        do {
            try psql(url, "CREATE DATABASE \(name)")
        } catch {
            return .failure(Unavailable(description: "cannot create the test database: \(error)"))
        }
        atexit { PostgresTestServer.dropDatabase() }
        return .success(name)
    }()

    private static let schemaCount = Atomic<Int>(0)

    /// A URL to a new, empty schema of this process's database. Stores opened on it keep their tables
    /// there, and their connections carry the schema's name as `application_name`, so a test can find
    /// (and terminate) exactly its own connections in `pg_stat_activity`.
    package static func freshSchema() throws -> (url: String, schema: String) {
        let database = try database.get()
        let schema = "s\(schemaCount.add(1, ordering: .relaxed).newValue)_\(UInt32.random(in: 0...UInt32.max))"
        let url = try self.url(database: database)
        try psql(url, "CREATE SCHEMA \(schema)")
        // `=` inside a URI parameter value must be percent-encoded for libpq.
        let parameters = "options=-csearch_path%3D\(schema)&application_name=\(schema)"
        return (url + (url.contains("?") ? "&" : "?") + parameters, schema)
    }

    /// The server's URL with another database.
    package static func url(database: String) throws -> String {
        guard let url, var components = URLComponents(string: url) else {
            throw Unavailable(description: "DROPTRACK_TEST_POSTGRES_URL is not a URL")
        }
        components.path = "/" + database
        return components.string ?? url
    }

    /// This process's database URL (tables in its `public` schema).
    package static func databaseURL() throws -> String { try url(database: try database.get()) }

    /// Runs SQL through psql and returns its unaligned, tuples-only output.
    @discardableResult
    package static func psql(_ url: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        process.arguments = [url, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", sql]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Unavailable(
                description:
                    "psql on \(PostgresStore.redactingPassword(in: url)) failed (\(process.terminationStatus)) running \(sql): \(problem)"
            )
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `restartCommand` from the repository root.
    package static func restart() throws {
        guard let restartCommand else {
            throw Unavailable(description: "DROPTRACK_TEST_POSTGRES_RESTART_COMMAND is not set")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", restartCommand]
        process.currentDirectoryURL = URL(fileURLWithPath: repositoryRoot)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Unavailable(description: "'\(restartCommand)' exited with \(process.terminationStatus)")
        }
    }

    /// Terminates the connections a store opened on a `freshSchema()` URL, waiting until they are gone.
    package static func terminateConnections(of schema: String) throws -> Int {
        // In the select list, not the WHERE clause: PostgreSQL may evaluate WHERE conditions in any order,
        // and would terminate every connection it looked at.
        let terminated = try psql(
            try databaseURL(),
            "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE application_name = '\(schema)'"
        )
        return Int(terminated) ?? 0
    }

    /// The open connections of stores on a `freshSchema()` URL.
    package static func connectionCount(of schema: String) throws -> Int {
        Int(try psql(try databaseURL(), "SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(schema)'"))
            ?? 0
    }

    private static func dropDatabase() {
        guard let url, case .success(let name) = database else { return }
        _ = try? psql(url, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}
