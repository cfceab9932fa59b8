import DropTrackContract
import DropTrackCore
import DropTrackModel
import Foundation

/// The SQL engines differ in a few places; everything else is shared.
enum SQLDialect {
    case sqlite, postgres

    /// `?` placeholders as the engine wants them (`$1`, `$2`, … for PostgreSQL).
    func render(_ sql: String) -> String {
        guard self == .postgres else { return sql }
        var out = ""
        var index = 0
        for character in sql {
            if character == "?" {
                index += 1
                out += "$\(index)"
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// How a claim locks rows: SKIP LOCKED lets PostgreSQL replicas claim different rows at once.
    var claimLock: String { self == .postgres ? " FOR UPDATE SKIP LOCKED" : "" }
    /// A row lock inside a transaction (SQLite locks the whole database on write instead).
    var rowLock: String { self == .postgres ? " FOR UPDATE" : "" }
    /// A statement that makes transactions taking the next negative dead-letter id wait for each
    /// other until commit, so two replicas cannot both read the same `MIN(id)`. SQLite needs none:
    /// its writers already take turns.
    var negativeDeadLetterIdLock: String? {
        // The key is arbitrary; it only has to be the same for every replica.
        self == .postgres ? "SELECT pg_advisory_xact_lock(7346826) AS locked" : nil
    }
}

/// A connection that runs SQL; one per transaction at a time.
protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs a statement and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow]
    /// Runs a statement and returns the number of rows changed.
    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int
}

/// `StoreTransaction` in SQL, shared by SQLite and PostgreSQL.
final class SQLTransaction: StoreTransaction {
    let connection: any SQLConnection
    var dialect: SQLDialect { connection.dialect }
    /// What `afterCommit` asked for, run by the store once COMMIT succeeded.
    private(set) var committedActions: [@Sendable () -> Void] = []

    init(connection: any SQLConnection) { self.connection = connection }

    func afterCommit(_ action: @escaping @Sendable () -> Void) { committedActions.append(action) }

    func query(_ sql: String, _ parameters: [SQLValue] = []) throws -> [SQLRow] {
        try connection.query(dialect.render(sql), parameters)
    }

    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue] = []) throws -> Int {
        try connection.execute(dialect.render(sql), parameters)
    }

    func databaseTime() throws -> Date? {
        // SQLite runs inside this process: its clock is the process's.
        guard dialect == .postgres else { return nil }
        // clock_timestamp(), not now(): now() is frozen at the transaction's start, which may be
        // before an earlier holder of the activity's row lock committed its timestamp.
        return try query("SELECT EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION").first?.double(0).map {
            Date(timeIntervalSince1970: $0)
        }
    }

    // MARK: Tokens

    func token(app: String, fingerprint: Fingerprint) throws -> TokenRecord? {
        try query(
            "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND fingerprint = ?",
            [.text(app), .text(fingerprint.value)]
        )
        .first.map(Self.token)
    }

    func saveTokens(_ tokens: [TokenRecord]) throws {
        // Many rows per statement, as in `enqueue`: an import is a round trip per run, not per token.
        for run in Self.runs(tokens.count, limit: 128) {
            var values: [SQLValue] = []
            values.reserveCapacity(run.count * 14)
            for token in tokens[run] {
                values += [
                    .text(token.app), .text(token.fingerprint.value), .text(token.kind.rawValue),
                    .text(token.token.wireValue),
                    SQLValue(token.userId), .text(token.deviceId), SQLValue(token.attributesType),
                    SQLValue(token.activityId), SQLValue(token.environment?.rawValue), SQLValue(token.createdAt),
                    SQLValue(token.lastSeenAt), SQLValue(token.invalidatedAt), SQLValue(token.invalidReason?.stored),
                    SQLValue(token.deviceText),
                ]
            }
            try execute(
                """
                INSERT INTO tokens (\(Self.tokenColumnList))
                VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: run.count).joined(separator: ", "))
                ON CONFLICT (app, fingerprint) DO UPDATE SET kind = excluded.kind, token = excluded.token,
                  user_id = excluded.user_id, device_id = excluded.device_id, attributes_type = excluded.attributes_type,
                  activity_id = excluded.activity_id, environment = excluded.environment, created_at = excluded.created_at,
                  last_seen_at = excluded.last_seen_at, invalidated_at = excluded.invalidated_at,
                  invalid_reason = excluded.invalid_reason, device = excluded.device
                """, values)
        }
    }

    // `+created_at` in the three reads below: with a plain `created_at`, SQLite (no statistics) read the
    // app's tokens in order through `tokens_recent` to skip a sort, every token of the app to find a
    // user's few (0.47 s from a cold cache with 1M tokens in the app, in each accepted event).
    func tokens(app: String, userId: String, kinds: [TokenKind]) throws -> [TokenRecord] {
        guard !kinds.isEmpty else { return [] }
        let marks = kinds.map { _ in "?" }.joined(separator: ", ")
        return try query(
            "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND user_id = ? AND kind IN (\(marks)) ORDER BY +created_at",
            [.text(app), .text(userId)] + kinds.map { .text($0.rawValue) }
        ).map(Self.token)
    }

    func tokens(app: String, activityId: String) throws -> [TokenRecord] {
        try query(
            "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND activity_id = ? AND kind = 'activity' ORDER BY +created_at",
            [.text(app), .text(activityId)]
        ).map(Self.token)
    }

    func channelSubscriptions(app: String, activityId: String) throws -> [TokenRecord] {
        try query(
            "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND activity_id = ? AND kind = 'channel_subscription' ORDER BY +created_at",
            [.text(app), .text(activityId)]
        ).map(Self.token)
    }

    func tokens(app: String, deviceIds: [String]) throws -> [TokenRecord] {
        // Valid and invalidated apart, each through its own partial index on (app, device_id).
        let valid = try tokens(app: app, where: "device_id", in: deviceIds, validOnly: true)
        let invalidated = try tokens(app: app, where: "device_id", in: deviceIds, invalidatedOnly: true)
        return (valid + invalidated).sorted { $0.createdAt < $1.createdAt }
    }

    func validTokens(app: String, deviceIds: [String]) throws -> [TokenRecord] {
        try tokens(app: app, where: "device_id", in: deviceIds, validOnly: true).sorted { $0.createdAt < $1.createdAt }
    }

    func tokens(app: String, fingerprints: [Fingerprint]) throws -> [TokenRecord] {
        try tokens(app: app, where: "fingerprint", in: fingerprints.map(\.value))
    }

    /// An app's tokens whose `column` is one of `values`, a run of values per statement.
    private func tokens(
        app: String, where column: String, in values: [String], validOnly: Bool = false, invalidatedOnly: Bool = false
    ) throws -> [TokenRecord] {
        var found: [TokenRecord] = []
        let valid =
            validOnly ? " AND invalidated_at IS NULL" : invalidatedOnly ? " AND invalidated_at IS NOT NULL" : ""
        try eachRun(of: values) { marks, run in
            found += try query(
                "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND \(column) IN (\(marks))\(valid)",
                [.text(app)] + run
            ).map(Self.token)
        }
        return found
    }

    func refreshTokenStatistics() throws {
        // SQLite has no statistics unless ANALYZE made them, and its plans are written for that (TokenQueryPlanTests).
        guard connection.dialect == .postgres else { return }
        _ = try execute("ANALYZE tokens", [])
    }

    func invalidateTokens(app: String, fingerprints: [Fingerprint], reason: InvalidationReason, at: Date) throws {
        try eachRun(of: fingerprints.map(\.value)) { marks, values in
            try execute(
                """
                UPDATE tokens SET invalidated_at = ?, invalid_reason = ?
                WHERE app = ? AND fingerprint IN (\(marks)) AND invalidated_at IS NULL
                """, [SQLValue(at), .text(reason.stored), .text(app)] + values)
        }
    }

    /// Calls `body` for `keys` (duplicates dropped) cut into runs (see `runs`), with the run's
    /// `?, ?, …` and its values.
    func recentTokens(app: String, limit: Int) throws -> Listed<TokenRecord> {
        try Listed.reading(
            try query(
                "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? ORDER BY created_at DESC, fingerprint DESC LIMIT ?",
                [.text(app), .int(Int64(max(0, limit)))]), Self.token)
    }

    func recentInvalidations(app: String, limit: Int) throws -> Listed<TokenRecord> {
        try Listed.reading(
            try query(
                "SELECT \(Self.tokenColumnList) FROM tokens WHERE app = ? AND invalidated_at IS NOT NULL ORDER BY invalidated_at DESC, fingerprint DESC LIMIT ?",
                [.text(app), .int(Int64(max(0, limit)))]), Self.token)
    }

    private func eachRun(of keys: [String], _ body: (String, [SQLValue]) throws -> Void) throws {
        var seen = Set<String>()
        let unique = keys.filter { seen.insert($0).inserted }
        for run in Self.runs(unique.count) {
            try body(Array(repeating: "?", count: run.count).joined(separator: ", "), unique[run].map { .text($0) })
        }
    }

    // MARK: Activities

    private func values(_ activity: ActivityRecord) -> [SQLValue] {
        [
            .text(activity.app), .text(activity.id), .text(activity.userId), .text(activity.attributesType),
            SQLValue(json: activity.attributes), SQLValue(json: activity.contentState), .text(activity.state.rawValue),
            .int(activity.version), .int(activity.timestamp), .text(activity.event.rawValue),
            .int(Int64(activity.priority)),
            .int(activity.priorityDowngraded ? 1 : 0), SQLValue(json: activity.alert), SQLValue(activity.staleDate),
            SQLValue(activity.dismissalDate), SQLValue(activity.relevanceScore), SQLValue(activity.idempotencyKey),
            SQLValue(json: activity.startResponse),
            SQLValue(json: .array(activity.priority10Times.map { .number(Double($0)) })), SQLValue(activity.createdAt),
            SQLValue(activity.updatedAt), SQLValue(activity.startAt), SQLValue(activity.endAt),
            SQLValue(activity.dismissAt), SQLValue(json: activity.schedule), SQLValue(activity.channelId),
            SQLValue(json: activity.mapperState), SQLValue(activity.channelPolicy.map(Int64.init)),
        ]
    }

    func activity(app: String, id: String) throws -> ActivityRecord? {
        try query(
            "SELECT \(Self.activityColumnList) FROM activities WHERE app = ? AND id = ?", [.text(app), .text(id)]
        ).first.map(Self.activity)
    }

    func activityForUpdate(app: String, id: String) throws -> ActivityRecord? {
        try query(
            "SELECT \(Self.activityColumnList) FROM activities WHERE app = ? AND id = ?\(dialect.rowLock)",
            [.text(app), .text(id)]
        ).first.map(Self.activity)
    }

    func activity(app: String, idempotencyKey: String) throws -> ActivityRecord? {
        try query(
            "SELECT \(Self.activityColumnList) FROM activities WHERE app = ? AND idempotency_key = ?",
            [.text(app), .text(idempotencyKey)]
        ).first.map(Self.activity)
    }

    func insertActivity(_ activity: ActivityRecord) throws {
        let marks = Array(repeating: "?", count: values(activity).count).joined(separator: ", ")
        try execute("INSERT INTO activities (\(Self.activityColumnList)) VALUES (\(marks))", values(activity))
    }

    func updateActivity(_ activity: ActivityRecord) throws {
        let assignments = Self.activityColumns.dropFirst(2).map { "\($0) = ?" }.joined(separator: ", ")
        var parameters = Array(values(activity).dropFirst(2))
        parameters += [.text(activity.app), .text(activity.id)]
        try execute("UPDATE activities SET \(assignments) WHERE app = ? AND id = ?", parameters)
    }

    func recentActivities(app: String, state: ActivityState?, limit: Int) throws -> Listed<ActivityRecord> {
        let stateClause = state == nil ? "" : " AND state = ?"
        let parameters: [SQLValue] =
            [.text(app)] + (state.map { [.text($0.rawValue)] } ?? []) + [.int(Int64(max(0, limit)))]
        return try Listed.reading(
            try query(
                "SELECT \(Self.activityColumnList) FROM activities WHERE app = ?\(stateClause) ORDER BY created_at DESC, id DESC LIMIT ?",
                parameters), Self.activity)
    }

    func activitiesNeedingAttention(now: Date) throws -> [ActivityRecord] {
        let seconds = now.timeIntervalSince1970
        // stale_date is whole seconds (BIGINT): PostgreSQL types the parameter as BIGINT and refuses a
        // fraction, and for a whole number `stale <= now` is `stale <= floor(now)`.
        let wholeSeconds = Int64(seconds.rounded(.down))
        return try query(
            """
            SELECT \(Self.activityColumnList) FROM activities WHERE
              (state = 'pending' AND (start_at IS NULL OR start_at <= ?))
              OR (state IN ('active', 'stale') AND end_at IS NOT NULL AND end_at <= ?)
              OR (state = 'active' AND stale_date IS NOT NULL AND stale_date <= ?)
              OR (state IN ('active', 'stale') AND schedule IS NOT NULL)
              OR (state = 'ended' AND dismiss_at IS NOT NULL AND dismiss_at <= ?)
            ORDER BY created_at
            """, [.double(seconds), .double(seconds), .int(wholeSeconds), .double(seconds)]
        ).map(Self.activity)
    }

}
