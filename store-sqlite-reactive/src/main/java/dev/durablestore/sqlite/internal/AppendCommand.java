package dev.durablestore.sqlite.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.StoreException;
import dev.durablestore.core.internal.EventEncoder;
import dev.durablestore.core.internal.OutboxRowEncoder;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code append} and {@code appendWithOutbox} (E3–E22): the guard, then contiguity, then the
 * inserts — all checks before the first write, so a rejected append needs no rollback.
 *
 * <p>Adjacent appends in a batch run as a group: every guard and contiguity check first, then the
 * events of all of them in multi-row inserts, then their outbox rows. A group trusts the events'
 * primary key for its one unread guard: an append at expected head 0 to a workflow whose head
 * neither this transaction nor the head cache knows is not preceded by a {@code SELECT max(seq)};
 * its first event has seq 1, and a workflow that has any event has seq 1 (a history starts at 1
 * and is contiguous, E6, E9, and nothing deletes events), so the insert fails exactly when the
 * guard would. Any check that fails, and any insert that fails, fails the group; the writer then
 * runs its appends again one by one, and the guard reads the head as usual (E3, E4, E13).
 */
final class AppendCommand implements GroupedCommand<AppendCommand> {

    private static final int HEAD_REREADS = 3;
    /** Appends of every workflow group together (their guards are checked one by one first). */
    private static final Object GROUP = AppendCommand.class;

    private final String workflowId;
    private final long expectedSeq;
    private final List<EventEncoder.Encoded> events;
    private final List<OutboxRowEncoder.Encoded> rows;
    private final Clock clock;
    private final HeadCache heads;

    AppendCommand(
            String workflowId,
            long expectedSeq,
            List<EventEncoder.Encoded> events,
            List<OutboxRowEncoder.Encoded> rows,
            Clock clock,
            HeadCache heads) {
        this.heads = heads;
        this.workflowId = workflowId;
        this.expectedSeq = expectedSeq;
        this.events = events;
        this.rows = rows;
        this.clock = clock;
    }

    @Override
    public Void execute(DbConnection c) throws SQLException {
        checkGuard(c);
        write(c);
        return null;
    }

    /**
     * E3, E4, E6: the guard against the head, then contiguity; writes nothing.
     *
     * @param c the write connection
     * @throws SQLException when the head cannot be read
     */
    void checkGuard(DbConnection c) throws SQLException {
        check(heads.head(c, workflowId));
    }

    /**
     * Inserts the events and stages the rows, once {@link #checkGuard} passed in this transaction.
     *
     * @param c the write connection
     * @throws SQLException on storage failure
     */
    void write(DbConnection c) throws SQLException {
        EventRows.insert(c, workflowId, events);
        advanceHead();
        if (!rows.isEmpty()) {
            OutboxRows.insertOrIgnore(c, rows, Times.nowNanos(clock.instant()));
        }
    }

    @Override
    public Object group() {
        return GROUP;
    }

    @Override
    public void executeGroup(DbConnection c, List<AppendCommand> commands) throws SQLException {
        List<EventRows.Row> eventRows = new ArrayList<>();
        for (AppendCommand append : commands) {
            // a later append of the same workflow in this group is checked against the head this
            // one leaves; a failed group rolls back, which forgets it
            append.checkGrouped(c, eventRows);
        }
        EventRows.insertAll(c, eventRows);
        long now = Times.nowNanos(clock.instant());
        for (AppendCommand append : commands) {
            append.stageRows(c, now);
        }
    }

    /**
     * The guard of a grouped run (see the class comment), its events collected into
     * {@code eventRows} and its head advanced for the later guards of the transaction; the events
     * are inserted by the caller, with those of the rest of the group.
     *
     * @param c the write connection
     * @param eventRows receives this append's events
     * @throws SQLException when the head cannot be read
     */
    void checkGrouped(DbConnection c, List<EventRows.Row> eventRows) throws SQLException {
        check(groupedHead(c));
        for (EventEncoder.Encoded e : events) {
            eventRows.add(new EventRows.Row(workflowId, e));
        }
        advanceHead();
    }

    /**
     * Stages this append's rows, after {@link #checkGrouped} and the group's event inserts.
     *
     * @param c the write connection
     * @param nowNanos the settle time of rows staged in a terminal status
     * @throws SQLException on storage failure
     */
    void stageRows(DbConnection c, long nowNanos) throws SQLException {
        if (!rows.isEmpty()) {
            OutboxRows.insertOrIgnore(c, rows, nowNanos);
        }
    }

    /**
     * @return the head this transaction or the cache knows; else the expected head 0 when the
     *     first event's insert will check it (see the class comment); else the head read
     */
    private long groupedHead(DbConnection c) throws SQLException {
        Long known = heads.known(workflowId);
        if (known != null) {
            return known;
        }
        return expectedSeq == 0 && !events.isEmpty() ? 0L : heads.head(c, workflowId);
    }

    /** Records the head this append's events leave, for later guards of the transaction. */
    private void advanceHead() {
        if (!events.isEmpty()) {
            heads.advanced(workflowId, expectedSeq + events.size());
        }
    }

    /** E3, E4: the guard comes first; then E6, contiguity. */
    private void check(long head) {
        if (head != expectedSeq) {
            throw new SequenceConflictException(expectedSeq, head);
        }
        for (int i = 0; i < events.size(); i++) {
            long wanted = expectedSeq + 1 + i;
            long actual = events.get(i).seq();
            if (actual != wanted) {
                throw new BackendException("event sequence must be contiguous: workflow " + workflowId
                        + " expected seq " + wanted + " but event " + i + " has seq " + actual);
            }
        }
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
                return head != expectedSeq
                        ? new SequenceConflictException(expectedSeq, head)
                        : Failures.backend(name(), failure);
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
