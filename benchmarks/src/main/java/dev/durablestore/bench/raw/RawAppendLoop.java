package dev.durablestore.bench.raw;

import dev.durablestore.api.event.Event;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The append baselines: one thread, the store's SQL (read the head, check it, insert the event),
 * either one {@code BEGIN IMMEDIATE} transaction per append (the original design) or
 * {@code perTransaction} appends per transaction (what a group commit at its bound can reach).
 */
public final class RawAppendLoop {

    private final RawRows rows;

    /** @param rows encodes the events */
    public RawAppendLoop(RawRows rows) {
        this.rows = rows;
    }

    /**
     * Appends each event as the first event of its own workflow (expected head 0).
     *
     * @param db a connection to a file with the schema
     * @param events one event per append
     * @param perTransaction appends per transaction (1 for the original design)
     * @return elapsed nanoseconds
     * @throws SQLException on failure, or when a head is not the expected one
     */
    public long run(RawDb db, List<Event> events, int perTransaction) throws SQLException {
        try (PreparedStatement head = db.connection().prepareStatement(RawSql.HEAD);
                PreparedStatement insert = db.connection().prepareStatement(RawSql.INSERT_EVENT)) {
            long began = System.nanoTime();
            int n = events.size();
            for (int i = 0; i < n; i++) {
                if (i % perTransaction == 0) {
                    db.begin();
                }
                Event e = events.get(i);
                head.setString(1, e.workflowId().toString());
                long found;
                try (ResultSet rs = head.executeQuery()) {
                    found = rs.next() ? rs.getLong(1) : 0L;
                }
                if (found != e.seq() - 1) {
                    throw new SQLException(
                            "head of " + e.workflowId() + " is " + found + ", expected " + (e.seq() - 1));
                }
                rows.bindEvent(insert, e);
                insert.executeUpdate();
                if ((i + 1) % perTransaction == 0 || i == n - 1) {
                    db.commit();
                }
            }
            return System.nanoTime() - began;
        }
    }
}
