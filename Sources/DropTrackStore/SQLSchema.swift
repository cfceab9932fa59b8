/// The store's schema in both dialects. `statements` create the version-2 tables and indexes
/// (each idempotent, so an older store is brought up by running them again); later versions are
/// `steps` that run once, in order, from the version a store is at.
enum SQLSchema {
    static let version = 16

    /// Changes after version 2, by the version they bring a store to.
    static let steps: [(version: Int, statements: [String])] = [
        (3, ["ALTER TABLE activities ADD COLUMN channel_policy INTEGER"]),
        // A claim orders by (available_at, id): without id in the index PostgreSQL sorts every due row
        // of the app per claim (73 ms per claim of 500 at 100k rows, against 14 ms with it).
        (
            4,
            [
                "CREATE INDEX IF NOT EXISTS outbox_claim ON outbox (app, available_at, id)",
                "DROP INDEX IF EXISTS outbox_due",
            ]
        ),
        // What the app reports about the device, for the doctor.
        (5, ["ALTER TABLE tokens ADD COLUMN device TEXT"]),
        // Invalidated tokens are deleted after the retention period; valid ones are not in this index.
        (
            6,
            [
                "CREATE INDEX IF NOT EXISTS tokens_invalidated ON tokens (invalidated_at) WHERE invalidated_at IS NOT NULL"
            ]
        ),
        // A registration reads the device's valid tokens only: with every token of the device in the
        // index, one device with 5,600 invalidated tokens took 27 ms per registration (SQLite's one
        // writer held all the while) against 1 ms for a new device.
        (
            7,
            [
                "CREATE INDEX IF NOT EXISTS tokens_device_valid ON tokens (app, device_id) WHERE invalidated_at IS NULL",
                "DROP INDEX IF EXISTS tokens_device",
            ]
        ),
        // The operator console lists an app's newest activities and tokens: without these, each page
        // sorts every row of the app.
        (
            8,
            [
                "CREATE INDEX IF NOT EXISTS activities_recent ON activities (app, created_at)",
                "CREATE INDEX IF NOT EXISTS tokens_recent ON tokens (app, created_at)",
            ]
        ),
        // Audiences: tags on users and devices (found by tag for a start), and the members a shared
        // activity froze at its start (found by user for a device's access).
        (
            11,
            [
                """
                CREATE TABLE IF NOT EXISTS tags (
                  app TEXT NOT NULL, subject_kind TEXT NOT NULL, subject_id TEXT NOT NULL, tag TEXT NOT NULL,
                  PRIMARY KEY (app, subject_kind, subject_id, tag))
                """,
                "CREATE INDEX IF NOT EXISTS tags_by_tag ON tags (app, tag)",
                """
                CREATE TABLE IF NOT EXISTS activity_members (
                  app TEXT NOT NULL, activity_id TEXT NOT NULL, user_id TEXT NOT NULL,
                  PRIMARY KEY (app, activity_id, user_id))
                """,
                "CREATE INDEX IF NOT EXISTS activity_members_user ON activity_members (app, user_id)",
            ]
        ),
        // A member reads a shared activity through its own devices: its timeline entries (by activity and id
        // alone, a member with one entry among 95,000 others' would walk them all, holding the store) and
        // its devices' tokens valid or not (tokens_device_valid holds the valid ones only, so the read
        // walked every token of the app: 20-28 ms per read at 95,000 tokens). Its twin holds the
        // invalidated ones, so that a registration, which reads a device's valid tokens, still walks
        // none of the invalidated ones (see version 7).
        (
            16,
            [
                "CREATE INDEX IF NOT EXISTS timeline_destination ON timeline (app, activity_id, destination, id)",
                "CREATE INDEX IF NOT EXISTS tokens_device_invalid ON tokens (app, device_id) WHERE invalidated_at IS NOT NULL",
                // A shared activity's progress, counted as the outcomes are written (TimelineEntry.startOutcome),
                // so a read does not walk every member's start entries; the existing ones counted once here.
                """
                CREATE TABLE IF NOT EXISTS start_outcomes (
                  app TEXT NOT NULL, activity_id TEXT NOT NULL, outcome TEXT NOT NULL, total BIGINT NOT NULL,
                  PRIMARY KEY (app, activity_id, outcome))
                """,
                """
                INSERT INTO start_outcomes (app, activity_id, outcome, total)
                SELECT app, activity_id, CASE WHEN status >= 200 AND status < 300 THEN 'started' ELSE reason END, COUNT(*)
                FROM timeline t WHERE event = 'start' AND destination <> '-' AND destination NOT LIKE 'range:%'
                  AND destination NOT LIKE 'channel:%'
                  AND id = (SELECT MAX(id) FROM timeline n WHERE n.app = t.app AND n.activity_id = t.activity_id
                    AND n.destination = t.destination AND n.event = 'start')
                  AND ((status >= 200 AND status < 300)
                    OR remedy NOT IN ('retry', 'reconnect', 'refresh_credentials', 'wait_for_provider'))
                GROUP BY 1, 2, 3
                ON CONFLICT DO NOTHING
                """,
            ]
        ),
    ]

    /// Changes that differ by dialect, by the version they bring a store to.
    static func dialectSteps(for dialect: SQLDialect) -> [(version: Int, statements: [String])] {
        // Outcome webhooks: a durable queue, in order per (app, endpoint, activity).
        [
            (9, webhookStatements(for: dialect)), (10, fanoutStatements(for: dialect)),
            (12, SQLTokenCounts.statements(for: dialect)), (13, fanoutIndexStatements(for: dialect)),
            (14, consoleSessionStatements(for: dialect)), (15, revocationStatements(for: dialect)),
        ]
    }

    /// Per-app console session caps (each sign-in trims its own app's sessions, found through the
    /// index), and the per-user `notBefore` of device credentials (`apps revoke-user`).
    private static func revocationStatements(for dialect: SQLDialect) -> [String] {
        let big = dialect == .postgres ? "BIGINT" : "INTEGER"
        return [
            "CREATE INDEX IF NOT EXISTS console_sessions_app ON console_sessions (app, last_seen_at)",
            """
            CREATE TABLE IF NOT EXISTS device_credential_revocations (
              app TEXT NOT NULL, user_id TEXT NOT NULL, not_before \(big) NOT NULL, PRIMARY KEY (app, user_id))
            """,
        ]
    }

    /// The operator console's sessions, shared by every replica (a session kept in one process's memory
    /// was unknown to the next replica a load balancer picked, and lost on a restart).
    private static func consoleSessionStatements(for dialect: SQLDialect) -> [String] {
        let real = dialect == .postgres ? "DOUBLE PRECISION" : "REAL"
        return [
            """
            CREATE TABLE IF NOT EXISTS console_sessions (
              id_digest TEXT PRIMARY KEY, app TEXT NOT NULL, key_fingerprint TEXT NOT NULL, csrf_token TEXT NOT NULL,
              created_at \(real) NOT NULL, last_seen_at \(real) NOT NULL)
            """
        ]
    }

    /// A range batch reads each token's fingerprint, token and environment: with only the key columns in
    /// the index, every token cost a lookup of its table row (a tenth of the server's CPU in a 100k
    /// fan-out on SQLite). The covering index replaces `tokens_activity_valid`, whose key it starts
    /// with, so it still serves everything that one did. PostgreSQL keeps the extra columns out of the
    /// key (`INCLUDE`). SQLite 3.40 counts a column that only the partial index's `WHERE` names as
    /// missing from the index, so there `invalidated_at` (always NULL in it) is in the key too.
    private static func fanoutIndexStatements(for dialect: SQLDialect) -> [String] {
        let columns =
            dialect == .postgres
            ? "(app, activity_id, kind, fingerprint) INCLUDE (token, environment)"
            : "(app, activity_id, kind, fingerprint, token, environment, invalidated_at)"
        return [
            "CREATE INDEX IF NOT EXISTS tokens_activity_fanout ON tokens \(columns) WHERE invalidated_at IS NULL",
            "DROP INDEX IF EXISTS tokens_activity_valid",
        ]
    }

    /// Fan-out range jobs: a constant number of rows per activity in place of one outbox row per
    /// update token. The index their workers stream the activity's valid tokens from, in fingerprint
    /// order, was `tokens_activity_valid` here; version 13 replaces it with a covering one, so a store
    /// upgraded from before 10 builds only that.
    private static func fanoutStatements(for dialect: SQLDialect) -> [String] {
        let real = dialect == .postgres ? "DOUBLE PRECISION" : "REAL"
        let big = dialect == .postgres ? "BIGINT" : "INTEGER"
        return [
            """
            CREATE TABLE IF NOT EXISTS fanout_jobs (
              app TEXT NOT NULL, activity_id TEXT NOT NULL, range_index INTEGER NOT NULL,
              requested_version \(big) NOT NULL, pass_version \(big) NOT NULL,
              cursor_fingerprint TEXT NOT NULL DEFAULT '', summary TEXT, first_queued_at \(real) NOT NULL,
              available_at \(real) NOT NULL, claimed_by TEXT, claimed_until \(real),
              resumed INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (app, activity_id, range_index))
            """,
            "CREATE INDEX IF NOT EXISTS fanout_due ON fanout_jobs (app, available_at)",
        ]
    }

    /// The webhook queue: ids order deliveries; `failed_at` marks the given-up ones.
    private static func webhookStatements(for dialect: SQLDialect) -> [String] {
        let real = dialect == .postgres ? "DOUBLE PRECISION" : "REAL"
        let serial = dialect == .postgres ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"
        return [
            """
            CREATE TABLE IF NOT EXISTS webhook_deliveries (
              id \(serial), app TEXT NOT NULL, endpoint TEXT NOT NULL, activity_id TEXT NOT NULL,
              delivery_id TEXT NOT NULL, event TEXT NOT NULL, body TEXT NOT NULL, created_at \(real) NOT NULL,
              available_at \(real) NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, claimed_by TEXT,
              claimed_until \(real), last_error TEXT, failed_at \(real))
            """,
            "CREATE INDEX IF NOT EXISTS webhook_order ON webhook_deliveries (app, endpoint, activity_id, id)",
            "CREATE INDEX IF NOT EXISTS webhook_due ON webhook_deliveries (available_at, id) WHERE failed_at IS NULL",
        ]
    }

    /// What brings a store at `version` up to date.
    static func migration(for dialect: SQLDialect, from version: Int) -> [String] {
        (version < 2 ? statements(for: dialect) : [])
            + (steps + dialectSteps(for: dialect)).filter { $0.version > version }.sorted { $0.version < $1.version }
            .flatMap(\.statements)
    }

    static func statements(for dialect: SQLDialect) -> [String] {
        let real = dialect == .postgres ? "DOUBLE PRECISION" : "REAL"
        let serial = dialect == .postgres ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY AUTOINCREMENT"
        let big = dialect == .postgres ? "BIGINT" : "INTEGER"
        return [
            """
            CREATE TABLE IF NOT EXISTS tokens (
              app TEXT NOT NULL, fingerprint TEXT NOT NULL, kind TEXT NOT NULL, token TEXT NOT NULL, user_id TEXT,
              device_id TEXT NOT NULL, attributes_type TEXT, activity_id TEXT, environment TEXT,
              created_at \(real) NOT NULL, last_seen_at \(real) NOT NULL, invalidated_at \(real), invalid_reason TEXT,
              PRIMARY KEY (app, fingerprint))
            """,
            "CREATE INDEX IF NOT EXISTS tokens_user ON tokens (app, user_id, kind)",
            "CREATE INDEX IF NOT EXISTS tokens_activity ON tokens (app, activity_id)",
            // Version 2: what a new token supersedes is looked up by device.
            "CREATE INDEX IF NOT EXISTS tokens_device ON tokens (app, device_id)",
            """
            CREATE TABLE IF NOT EXISTS activities (
              app TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, attributes_type TEXT NOT NULL,
              attributes TEXT NOT NULL, content_state TEXT NOT NULL, state TEXT NOT NULL, version \(big) NOT NULL,
              timestamp \(big) NOT NULL, event TEXT NOT NULL, priority INTEGER NOT NULL,
              priority_downgraded INTEGER NOT NULL, alert TEXT, stale_date \(big), dismissal_date \(big),
              relevance_score \(real), idempotency_key TEXT, start_response TEXT, priority10_times TEXT NOT NULL,
              created_at \(real) NOT NULL, updated_at \(real) NOT NULL, start_at \(real), end_at \(real),
              dismiss_at \(real), schedule TEXT, channel_id TEXT, mapper_state TEXT,
              PRIMARY KEY (app, id))
            """,
            """
            CREATE UNIQUE INDEX IF NOT EXISTS activities_idempotency ON activities (app, idempotency_key)
              WHERE idempotency_key IS NOT NULL
            """,
            "CREATE INDEX IF NOT EXISTS activities_state ON activities (state)",
            // token_fingerprint holds an `OutboxDestination.stored`: a fingerprint, or `channel:<id>`.
            """
            CREATE TABLE IF NOT EXISTS outbox (
              id \(serial), app TEXT NOT NULL, activity_id TEXT NOT NULL, token_fingerprint TEXT NOT NULL,
              requested_version \(big) NOT NULL, available_at \(real) NOT NULL, first_queued_at \(real) NOT NULL,
              attempts INTEGER NOT NULL DEFAULT 0, claimed_by TEXT, claimed_until \(real), last_error TEXT,
              in_doubt INTEGER NOT NULL DEFAULT 0, UNIQUE (app, activity_id, token_fingerprint))
            """,
            "CREATE INDEX IF NOT EXISTS outbox_due ON outbox (app, available_at)",
            """
            CREATE TABLE IF NOT EXISTS dead_letters (
              id \(big) PRIMARY KEY, app TEXT NOT NULL, activity_id TEXT NOT NULL, token_fingerprint TEXT NOT NULL,
              requested_version \(big) NOT NULL, first_queued_at \(real) NOT NULL, attempts INTEGER NOT NULL,
              last_error TEXT)
            """,
            """
            CREATE TABLE IF NOT EXISTS timeline (
              id \(serial), app TEXT NOT NULL, activity_id TEXT NOT NULL, at \(real) NOT NULL,
              destination TEXT NOT NULL, provider TEXT NOT NULL, event TEXT NOT NULL, version \(big) NOT NULL,
              status INTEGER NOT NULL, reason TEXT NOT NULL, remedy TEXT NOT NULL, latency_ms \(real) NOT NULL,
              priority INTEGER NOT NULL, attempt INTEGER NOT NULL, note TEXT)
            """,
            "CREATE INDEX IF NOT EXISTS timeline_activity ON timeline (app, activity_id, id)",
        ]
    }
}
