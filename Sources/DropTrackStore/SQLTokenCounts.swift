/// Schema 12: the number of valid update tokens of each activity, in `activity_token_counts`, kept
/// by triggers on `tokens` in the transaction that changes them. Accepting an event reads it by
/// primary key instead of a `COUNT(*)` over the activity's entries in `tokens_activity_valid`, which
/// took 0.12–0.52 s at 1M tokens and grew with the audience.
///
/// Triggers rather than code in each writer: every statement that inserts, updates or deletes a
/// token keeps the count right, whichever path it comes from (a registration's upsert, which may
/// move a token to another activity, change its kind or bring an invalidated one back; an
/// invalidation; the pruning of old invalid rows; a change made by hand with `psql` or `sqlite3`).
/// A token counts when its kind is `activity`, it has an activity and it is not invalidated.
///
/// Contention: the count is one row per activity, written by every transaction that changes the
/// activity's tokens. Registrations already lock the activity's row first (`activityForUpdate`, so
/// an event cannot commit between them), so they were serialised per activity before this row.
enum SQLTokenCounts {
    /// The table, the triggers, then the count of the rows already there. On PostgreSQL
    /// `DROP TRIGGER` and `CREATE TRIGGER` lock `tokens` against writes until the migration commits,
    /// so no token written between the triggers and the fill is missed or counted twice; SQLite's
    /// migration holds the one write lock throughout.
    static func statements(for dialect: SQLDialect) -> [String] {
        let big = dialect == .postgres ? "BIGINT" : "INTEGER"
        let table = """
            CREATE TABLE IF NOT EXISTS activity_token_counts (
              app TEXT NOT NULL, activity_id TEXT NOT NULL, valid_update_tokens \(big) NOT NULL,
              PRIMARY KEY (app, activity_id))
            """
        let fill = """
            INSERT INTO activity_token_counts (app, activity_id, valid_update_tokens)
            SELECT app, activity_id, COUNT(*) FROM tokens
            WHERE kind = 'activity' AND invalidated_at IS NULL AND activity_id IS NOT NULL
            GROUP BY app, activity_id
            """
        // Counted again from the rows, not added to: a store whose version was set back runs this again.
        let recount = ["DELETE FROM activity_token_counts", fill]
        switch dialect {
        case .postgres:
            return [table, postgresFunction, "DROP TRIGGER IF EXISTS tokens_count ON tokens", postgresTrigger] + recount
        case .sqlite: return [table] + sqliteTriggers + recount
        }
    }

    /// Whether the row `row` (`OLD` or `NEW`) counts.
    private static func counted(_ row: String) -> String {
        "\(row).kind = 'activity' AND \(row).invalidated_at IS NULL AND \(row).activity_id IS NOT NULL"
    }

    /// An update that leaves a counted token counted for the same activity changes nothing.
    private static let sameCount =
        "\(counted("OLD")) AND \(counted("NEW")) AND OLD.app = NEW.app"
        + " AND OLD.activity_id = NEW.activity_id"

    private static func sqliteAdd(_ row: String) -> String {
        """
        INSERT INTO activity_token_counts (app, activity_id, valid_update_tokens) VALUES (\(row).app, \(row).activity_id, 1)
          ON CONFLICT (app, activity_id) DO UPDATE SET valid_update_tokens = valid_update_tokens + 1;
        """
    }

    private static func sqliteRemove(_ row: String) -> String {
        """
        UPDATE activity_token_counts SET valid_update_tokens = valid_update_tokens - 1
          WHERE app = \(row).app AND activity_id = \(row).activity_id;
        """
    }

    /// SQLite has no trigger for several events, and a `WHEN` per direction keeps each body one
    /// statement. `UPDATE OF` the columns that decide whether and where a token counts.
    private static let sqliteTriggers: [String] = [
        """
        CREATE TRIGGER IF NOT EXISTS tokens_count_insert AFTER INSERT ON tokens WHEN \(counted("NEW"))
        BEGIN \(sqliteAdd("NEW")) END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS tokens_count_delete AFTER DELETE ON tokens WHEN \(counted("OLD"))
        BEGIN \(sqliteRemove("OLD")) END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS tokens_count_update_from
        AFTER UPDATE OF app, kind, activity_id, invalidated_at ON tokens
        WHEN \(counted("OLD")) AND NOT (\(sameCount))
        BEGIN \(sqliteRemove("OLD")) END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS tokens_count_update_to
        AFTER UPDATE OF app, kind, activity_id, invalidated_at ON tokens
        WHEN \(counted("NEW")) AND NOT (\(sameCount))
        BEGIN \(sqliteAdd("NEW")) END
        """,
    ]

    /// One row trigger for the three events. `OLD` is read only for updates and deletes, `NEW` only
    /// for inserts and updates.
    private static let postgresFunction = """
        CREATE OR REPLACE FUNCTION droptrack_count_update_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          was_counted BOOLEAN := FALSE;
          is_counted BOOLEAN := FALSE;
        BEGIN
          IF TG_OP <> 'INSERT' THEN
            was_counted := \(counted("OLD"));
          END IF;
          IF TG_OP <> 'DELETE' THEN
            is_counted := \(counted("NEW"));
          END IF;
          IF was_counted AND is_counted AND OLD.app = NEW.app AND OLD.activity_id = NEW.activity_id THEN
            RETURN NULL;
          END IF;
          IF was_counted THEN
            UPDATE activity_token_counts SET valid_update_tokens = valid_update_tokens - 1
              WHERE app = OLD.app AND activity_id = OLD.activity_id;
          END IF;
          IF is_counted THEN
            INSERT INTO activity_token_counts (app, activity_id, valid_update_tokens) VALUES (NEW.app, NEW.activity_id, 1)
              ON CONFLICT (app, activity_id) DO UPDATE
              SET valid_update_tokens = activity_token_counts.valid_update_tokens + 1;
          END IF;
          RETURN NULL;
        END
        $$
        """

    private static let postgresTrigger = """
        CREATE TRIGGER tokens_count AFTER INSERT OR DELETE OR UPDATE OF app, kind, activity_id, invalidated_at
          ON tokens FOR EACH ROW EXECUTE FUNCTION droptrack_count_update_tokens()
        """
}
