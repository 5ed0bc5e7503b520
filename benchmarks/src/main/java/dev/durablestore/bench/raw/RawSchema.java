package dev.durablestore.bench.raw;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The store's schema, copied as text from {@code store-sqlite-reactive}'s {@code Schema} (the
 * baselines must not call the store's internal classes): the same tables, the outbox with its
 * migrated columns in the order the store adds them, and the same indexes, so a baseline pays for
 * the same index maintenance as the store. A file created here can be opened by the store, which
 * then finds nothing to create or migrate.
 */
public final class RawSchema {

    /** The three tables. */
    public static final List<String> TABLES = List.of("""
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
                visible_after INTEGER NOT NULL,
                claimed_at INTEGER,
                run_id TEXT,
                namespace TEXT,
                task_queue TEXT,
                node TEXT,
                settled_at INTEGER
            )""");

    /** The indexes, in the store's order. */
    public static final List<String> INDEXES = List.of(
            "CREATE INDEX IF NOT EXISTS events_queryable ON events "
                    + "(workflow_id, seq, kind, workflow_type, recorded_at, child_workflow_id) WHERE queryable = 1",
            "CREATE INDEX IF NOT EXISTS timers_fire_at ON timers (fire_at, workflow_id, timer_id)",
            "CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (status, visible_after, dispatch_key) "
                    + "WHERE status = 'pending'",
            "CREATE INDEX IF NOT EXISTS outbox_claimed ON outbox (status, claimed_at, dispatch_key) "
                    + "WHERE status = 'claimed' AND claimed_at IS NOT NULL",
            "CREATE INDEX IF NOT EXISTS outbox_by_workflow ON outbox (workflow_id)",
            "CREATE INDEX IF NOT EXISTS outbox_settled ON outbox (settled_at) "
                    + "WHERE status IN ('done', 'failed', 'cancelled')");

    private RawSchema() {}

    /**
     * Creates tables and indexes.
     *
     * @param c a connection
     * @throws SQLException on failure
     */
    public static void create(Connection c) throws SQLException {
        createTables(c);
        createIndexes(c);
    }

    /**
     * Creates the tables only (a bulk load is faster before the indexes exist).
     *
     * @param c a connection
     * @throws SQLException on failure
     */
    public static void createTables(Connection c) throws SQLException {
        execute(c, TABLES);
    }

    /**
     * Creates the indexes.
     *
     * @param c a connection
     * @throws SQLException on failure
     */
    public static void createIndexes(Connection c) throws SQLException {
        execute(c, INDEXES);
    }

    /**
     * Adds the outbox's {@code claim_token} column (W5), which the store adds last by migration and
     * the fenced loops need, unless the table has it already.
     *
     * @param c a connection
     * @throws SQLException on failure
     */
    public static void addClaimToken(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            try (java.sql.ResultSet rs =
                    s.executeQuery("SELECT 1 FROM pragma_table_info('outbox') " + "WHERE name = 'claim_token'")) {
                if (rs.next()) {
                    return;
                }
            }
            s.execute("ALTER TABLE outbox ADD COLUMN claim_token INTEGER");
        }
    }

    private static void execute(Connection c, List<String> statements) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
