package dev.durablestore.bench.raw;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.bench.Fixtures;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * Fills a fresh database file fast, before a store opens it: the store's tables, outbox rows in
 * large transactions with {@code synchronous=OFF}, then the store's indexes.
 */
public final class RawLoader {

    private static final int ROWS_PER_WORKFLOW = 10;
    private static final int ROWS_PER_TRANSACTION = 50_000;

    private final RawRows rows;

    /** @param rows encodes rows */
    public RawLoader(RawRows rows) {
        this.rows = rows;
    }

    /**
     * Creates the schema and loads {@code count} outbox rows, ten per random workflow.
     *
     * @param db a file that does not exist yet
     * @param count rows to load
     * @param status {@link OutboxStatus#DONE} for settled history (settled over the past day), or
     *     {@link OutboxStatus#PENDING} for due rows
     * @throws SQLException on failure
     */
    public void load(Path db, int count, OutboxStatus status) throws SQLException {
        try (RawDb raw = RawDb.open(db, "OFF")) {
            RawSchema.createTables(raw.connection());
            Instant now = Instant.now();
            long dayNanos = Duration.ofDays(1).toNanos();
            try (PreparedStatement insert = raw.connection().prepareStatement(RawSql.INSERT_OR_IGNORE_ROW)) {
                WorkflowId w = WorkflowId.random();
                for (int i = 0; i < count; i++) {
                    if (i % ROWS_PER_WORKFLOW == 0) {
                        w = WorkflowId.random();
                    }
                    if (i % ROWS_PER_TRANSACTION == 0) {
                        raw.begin();
                    }
                    long ordinal = i % ROWS_PER_WORKFLOW + 1;
                    Instant visible = status.isLive() ? now : now.minusNanos(dayNanos - (long) i * dayNanos / count);
                    OutboxRow row = Fixtures.pendingRow(w, ordinal, visible).withStatus(status, null);
                    rows.bindRow(insert, row, RawDb.nanos(visible) + 1_000_000L);
                    insert.executeUpdate();
                    if ((i + 1) % ROWS_PER_TRANSACTION == 0 || i == count - 1) {
                        raw.commit();
                    }
                }
            }
            RawSchema.createIndexes(raw.connection());
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        }
    }
}
