package dev.durablestore.sqlite.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.StoreException;
import dev.durablestore.api.spi.OutboxRowEncoder;
import dev.durablestore.api.spi.EventEncoder;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;

/**
 * {@code append} and {@code appendWithOutbox} (E3–E22): the guard, then contiguity, then the
 * inserts — all checks before the first write, so a rejected append needs no rollback.
 */
final class AppendCommand implements WriteCommand<Void> {

    private static final int HEAD_REREADS = 3;

    private final String workflowId;
    private final long expectedSeq;
    private final List<EventEncoder.Encoded> events;
    private final List<OutboxRowEncoder.Encoded> rows;
    private final Clock clock;
    private final HeadCache heads;

    AppendCommand(String workflowId, long expectedSeq, List<EventEncoder.Encoded> events,
            List<OutboxRowEncoder.Encoded> rows, Clock clock, HeadCache heads) {
        this.heads = heads;
        this.workflowId = workflowId;
        this.expectedSeq = expectedSeq;
        this.events = events;
        this.rows = rows;
        this.clock = clock;
    }

    @Override
    public Void execute(DbConnection c) throws SQLException {
        long head = heads.head(c, workflowId);
        if (head != expectedSeq) {
            throw new SequenceConflictException(expectedSeq, head); // E3, E4: the guard comes first
        }
        for (int i = 0; i < events.size(); i++) {
            long wanted = expectedSeq + 1 + i;
            long actual = events.get(i).seq();
            if (actual != wanted) {
                throw new BackendException("event sequence must be contiguous: workflow " + workflowId
                        + " expected seq " + wanted + " but event " + i + " has seq " + actual); // E6
            }
        }
        EventRows.insert(c, workflowId, events);
        if (!events.isEmpty()) {
            heads.advanced(workflowId, expectedSeq + events.size());
        }
        if (!rows.isEmpty()) {
            OutboxRows.insertOrIgnore(c, rows, Times.nowNanos(clock.instant()));
        }
        return null;
    }

    /** E15: a storage failure is a conflict when the committed head has moved away from the guard. */
    @Override
    public Throwable onTransactionFailure(DbConnection c, Throwable failure) {
        if (failure instanceof StoreException se) {
            return se;
        }
        for (int i = 0; i < HEAD_REREADS; i++) {
            try {
                long head = EventRows.head(c, workflowId);
                return head != expectedSeq ? new SequenceConflictException(expectedSeq, head) : Failures.backend(name(), failure);
            } catch (SQLException | RuntimeException reread) {
                failure.addSuppressed(reread);
            }
        }
        return Failures.backend(name(), failure);
    }

    @Override
    public boolean wakesClaimers() {
        return !rows.isEmpty();
    }

    @Override
    public String name() {
        return rows.isEmpty() ? "append" : "appendWithOutbox";
    }
}
