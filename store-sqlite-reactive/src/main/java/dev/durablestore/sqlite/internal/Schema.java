package dev.durablestore.sqlite.internal;

import dev.durablestore.core.storage.SchemaVersion;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Creates the tables and indexes idempotently (S1–S6) and migrates older outbox tables by adding
 * missing columns and rewriting legacy NULL routes to {@code 'default'} (S7–S9), and by replacing
 * the composite workflow index of earlier files with {@code outbox_by_workflow}.
 *
 * <p>The file records its schema version in the header's {@code user_version} (0 in files from
 * before versions were recorded); a file that records a newer one than this library's is refused
 * before anything is written to it (S29, {@link SchemaVersion}).
 *
 * <p>Every timestamp column holds epoch nanoseconds as INTEGER (S10).
 */
final class Schema {

    private static final List<String> TABLES = List.of("""
            CREATE TABLE IF NOT EXISTS events (
                workflow_id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                event BLOB NOT NULL,
                recorded_at INTEGER NOT NULL,
                kind TEXT NOT NULL,
                queryable INTEGER NOT NULL,
                workflow_type TEXT,
                child_workflow_id TEXT,
                PRIMARY KEY (workflow_id, seq)
            ) WITHOUT ROWID""", """
            CREATE TABLE IF NOT EXISTS timers (
                workflow_id TEXT NOT NULL,
                timer_id TEXT NOT NULL,
                fire_at INTEGER NOT NULL,
                PRIMARY KEY (workflow_id, timer_id)
            ) WITHOUT ROWID""", """
            CREATE TABLE IF NOT EXISTS outbox (
                dispatch_key TEXT NOT NULL PRIMARY KEY,
                workflow_id TEXT NOT NULL,
                ordinal INTEGER NOT NULL,
                activity_type TEXT NOT NULL,
                input BLOB NOT NULL,
                status TEXT NOT NULL,
                attempt INTEGER NOT NULL,
                visible_after INTEGER NOT NULL
            )""");

    /** Columns added after the first outbox version, in the order they are added (S7). */
    private static final List<String[]> OUTBOX_COLUMNS = List.of(
            new String[] {"claimed_at", "INTEGER"},
            new String[] {"run_id", "TEXT"},
            new String[] {"namespace", "TEXT"},
            new String[] {"task_queue", "TEXT"},
            new String[] {"node", "TEXT"},
            new String[] {"settled_at", "INTEGER"},
            new String[] {"claim_token", "INTEGER"},
            new String[] {"trace_context", "TEXT"},
            // O62: a constant default, so adding it rewrites no row and old rows read 0
            new String[] {"priority", "INTEGER NOT NULL DEFAULT 0"},
            // O65: the node of the claim that took the row (NULL for none, and in old rows), so
            // node-capped claims can count what a node holds; not indexed, read only beside
            // outbox_claimed
            new String[] {"claimed_by", "TEXT"},
            // O66: the row's last failed attempts as a JSON array (FailureHistory), NULL for none and
            // in old rows; written only by a settle that gives a reason; schema version 2
            new String[] {"failures", "TEXT"});

    private static final List<String> INDEXES = List.of(
            // Only the queryable events (lifecycle, child starts): every read of it asks for
            // queryable = 1, and the activity events (most of a history) then cost no index write.
            // Files made before it had the full index; it is dropped below (SUPERSEDED_EVENT_INDEX).
            "CREATE INDEX IF NOT EXISTS events_queryable ON events "
                    + "(workflow_id, seq, kind, workflow_type, recorded_at, child_workflow_id) WHERE queryable = 1",
            "CREATE INDEX IF NOT EXISTS timers_fire_at ON timers (fire_at, workflow_id, timer_id)",
            "CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (status, visible_after, dispatch_key) "
                    + "WHERE status = 'pending'",
            // O62: only rows with a priority, so rows without one (the usual case) cost nothing
            // more to stage, claim or settle; a claim reads this one first (ClaimCommand).
            "CREATE INDEX IF NOT EXISTS outbox_prioritized ON outbox (status, priority DESC, visible_after, "
                    + "dispatch_key) WHERE status = 'pending' AND priority > 0",
            "CREATE INDEX IF NOT EXISTS outbox_claimed ON outbox (status, claimed_at, dispatch_key) "
                    + "WHERE status = 'claimed' AND claimed_at IS NOT NULL",
            // By workflow alone, not (workflow_id, status): a claim or a settle then changes no
            // column of this index, so SQLite skips it: a drain of staged rows ran ~15% faster in a
            // same-run A/B (docs/design.md: outbox indexes). Workflow-wide
            // operations filter the workflow's rows by status instead. Files made before this
            // index had the composite one under the old name; it is dropped below.
            "CREATE INDEX IF NOT EXISTS outbox_by_workflow ON outbox (workflow_id)",
            "CREATE INDEX IF NOT EXISTS outbox_settled ON outbox (settled_at) "
                    + "WHERE status IN ('done', 'failed', 'cancelled')");

    /** The composite (workflow_id, status) index of earlier files, replaced by {@code outbox_by_workflow}. */
    static final String SUPERSEDED_WORKFLOW_INDEX = "outbox_workflow";

    /** The index of every event of earlier files, replaced by the partial {@code events_queryable}. */
    static final String SUPERSEDED_EVENT_INDEX = "events_projection";

    private Schema() {}

    /**
     * Reads the schema version the file records and refuses one this library does not read (S29).
     * Reads only, so it can run before anything is written to the file.
     *
     * @param c a connection to the file
     * @param file the file, as the error names it
     * @return the recorded version, 0 for none
     * @throws SQLException when the version cannot be read
     * @throws dev.durablestore.api.SchemaVersionException when the version is newer than this
     *     library's or negative
     */
    static int requireOpenable(DbConnection c, String file) throws SQLException {
        // a 32-bit integer in the file header, so the narrowing is exact
        int recorded = (int) c.queryLong("PRAGMA user_version");
        SchemaVersion.requireOpenable(recorded, file);
        return recorded;
    }

    /**
     * Applies the schema and migrations in one transaction on the write connection, and records the
     * current schema version when the file records an older one. Checks the recorded version again
     * first, under the write lock: another process may have upgraded the file since it was opened.
     *
     * @param c the write connection
     * @param file the file, as errors name it
     * @throws SQLException on failure (the caller maps it to a failed open, S20)
     * @throws dev.durablestore.api.SchemaVersionException when the file records a version this
     *     library does not read; the transaction is rolled back untouched
     */
    static void apply(DbConnection c, String file) throws SQLException {
        c.execute("BEGIN IMMEDIATE");
        try {
            int recorded = requireOpenable(c, file);
            for (String ddl : TABLES) {
                c.execute(ddl);
            }
            Set<String> present = outboxColumns(c);
            for (String[] column : OUTBOX_COLUMNS) {
                if (!present.contains(column[0])) {
                    c.execute("ALTER TABLE outbox ADD COLUMN " + column[0] + " " + column[1]);
                }
            }
            // S9: legacy rows get real routes, so every predicate can compare the columns directly.
            // Only rows written before the columns existed can hold NULL (this store never writes
            // one), so the full-table rewrite runs only in the transaction that adds a column.
            if (!present.contains("namespace")) {
                c.execute("UPDATE outbox SET namespace = 'default' WHERE namespace IS NULL");
            }
            if (!present.contains("task_queue")) {
                c.execute("UPDATE outbox SET task_queue = 'default' WHERE task_queue IS NULL");
            }
            c.execute("DROP INDEX IF EXISTS " + SUPERSEDED_WORKFLOW_INDEX);
            c.execute("DROP INDEX IF EXISTS " + SUPERSEDED_EVENT_INDEX);
            for (String ddl : INDEXES) {
                c.execute(ddl);
            }
            if (recorded < SchemaVersion.CURRENT) {
                // transactional like the rest: the version is recorded with the migration or not at all
                c.execute("PRAGMA user_version = " + SchemaVersion.CURRENT);
            }
            c.execute("COMMIT");
        } catch (SQLException | RuntimeException e) {
            try {
                c.execute("ROLLBACK");
            } catch (SQLException ignored) {
                // the original failure is what matters
            }
            throw e;
        }
    }

    private static Set<String> outboxColumns(DbConnection c) throws SQLException {
        Set<String> names = new HashSet<>();
        try (Statement s = c.raw().createStatement();
                ResultSet rs = s.executeQuery("PRAGMA table_info(outbox)")) {
            while (rs.next()) {
                names.add(rs.getString("name"));
            }
        }
        return names;
    }
}
