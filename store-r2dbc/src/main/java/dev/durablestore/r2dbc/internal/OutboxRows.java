package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.SerializationException;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.StoredRows;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Row;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Mono;

/** The {@code outbox} table: row validation, encoding, insertion and decoding (O1, O6, S5, S8). */
final class OutboxRows {

    /** The columns every row-returning outbox statement selects, in this order. */
    static final String COLUMNS = "dispatch_key, workflow_id, ordinal, run_id, namespace, task_queue, node, "
            + "activity_type, input, status, attempt, visible_after, claimed_at, claim_token, "
            + "trace_context, priority";
    /** How many columns {@link #COLUMNS} names. */
    static final int COLUMN_COUNT = 16;

    /**
     * The columns a claim reads back: those of {@link #COLUMNS} but the three the claim sets itself
     * ({@code status}, {@code claimed_at}, {@code claim_token}), whose values the claim already holds
     * ({@link #claimed}), in this order.
     */
    static final String CLAIMED_COLUMNS = "dispatch_key, workflow_id, ordinal, run_id, namespace, task_queue, "
            + "node, activity_type, input, attempt, visible_after, trace_context, priority";
    /** How many columns {@link #CLAIMED_COLUMNS} names. */
    static final int CLAIMED_COLUMN_COUNT = 13;

    /**
     * {@link #CLAIMED_COLUMNS} as PostgreSQL's claim returns them from its {@code UPDATE outbox o}:
     * the input as hex text ({@code encode}), read with {@code hexInput}. r2dbc-postgresql reads
     * {@code bytea} in the text format, and decodes that text through a regular expression, the
     * dearest column of a claimed row; the same bytes as hex text are one plain pass.
     */
    static final String CLAIMED_RETURNING_PG = "o.dispatch_key, o.workflow_id, o.ordinal, o.run_id, o.namespace, "
            + "o.task_queue, o.node, o.activity_type, encode(o.input, 'hex') AS input, o.attempt, o.visible_after, "
            + "o.trace_context, o.priority";

    /** Insert-or-ignore by dispatch key (O9, E21); the same text on PostgreSQL and H2. */
    static final String INSERT_OR_IGNORE = "INSERT INTO outbox (dispatch_key, workflow_id, ordinal, "
            + "run_id, namespace, task_queue, node, activity_type, input, status, attempt, visible_after, claimed_at, "
            + "settled_at, trace_context, priority) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, "
            + "$16) "
            + "ON CONFLICT DO NOTHING";

    private static final String CLAIMED = OutboxStatus.CLAIMED.token();

    private final EventCodec codec;

    /** @param codec encodes row inputs */
    OutboxRows(EventCodec codec) {
        this.codec = codec;
    }

    /**
     * Inserts rows, skipping keys already stored (O9, E21): one statement, one execution per row.
     *
     * @param c a connection inside the write transaction
     * @param rows encoded rows
     * @param nowNanos the settle time recorded for rows staged in a terminal status
     * @return the number of rows inserted
     */
    static Mono<Long> insertOrIgnore(Connection c, List<OutboxRowEncoder.Encoded> rows, long nowNanos) {
        List<Object[]> values = new ArrayList<>(rows.size());
        for (OutboxRowEncoder.Encoded e : rows) {
            OutboxRow r = e.row();
            values.add(new Object[] {
                r.dispatchKey(),
                r.workflowId().toString(),
                r.ordinal(),
                Sql.text(r.runId() == null ? null : r.runId().toString()),
                r.namespace(),
                r.taskQueue(),
                Sql.text(r.node()),
                r.activityType(),
                e.input(),
                r.status().token(),
                (long) r.attempt(),
                e.visibleAfterNanos(),
                Sql.bigint(e.claimedAtNanos()),
                Sql.bigint(r.status().isLive() ? null : nowNanos),
                Sql.text(r.traceContext()),
                r.priority()
            });
        }
        return Sql.updateEach(c, INSERT_OR_IGNORE, values);
    }

    /**
     * Copies one row of {@link #COLUMNS} out of the driver, without decoding it.
     *
     * @param row the row
     * @return the stored values
     */
    static Stored stored(Row row) {
        return new Stored(
                Sql.textAt(row, 0),
                Sql.textAt(row, 1),
                Sql.longAt(row, 2),
                Sql.textAt(row, 3),
                Sql.textAt(row, 4),
                Sql.textAt(row, 5),
                Sql.textAt(row, 6),
                Sql.textAt(row, 7),
                Sql.bytesAt(row, 8),
                Sql.textAt(row, 9),
                Sql.longAt(row, 10),
                Sql.longAt(row, 11),
                Sql.longAt(row, 12),
                Sql.longAt(row, 13),
                Sql.textAt(row, 14),
                Sql.longAt(row, 15));
    }

    /**
     * Copies one row of {@link #CLAIMED_COLUMNS} out of the driver, without decoding it, with the
     * values its claim wrote.
     *
     * @param row the row
     * @param claimedAt the claim's {@code claimed_at}
     * @param claimToken the claim's token
     * @param hexInput true when the input comes as hex text ({@link #CLAIMED_RETURNING_PG})
     * @return the stored values
     */
    static Stored claimed(Row row, Long claimedAt, Long claimToken, boolean hexInput) {
        return new Stored(
                Sql.textAt(row, 0),
                Sql.textAt(row, 1),
                Sql.longAt(row, 2),
                Sql.textAt(row, 3),
                Sql.textAt(row, 4),
                Sql.textAt(row, 5),
                Sql.textAt(row, 6),
                Sql.textAt(row, 7),
                hexInput ? Sql.hexAt(row, 8) : Sql.bytesAt(row, 8),
                CLAIMED,
                Sql.longAt(row, 9),
                Sql.longAt(row, 10),
                claimedAt,
                claimToken,
                Sql.textAt(row, 11),
                Sql.longAt(row, 12));
    }

    /**
     * @param s a stored row
     * @return the row
     * @throws SerializationException naming the dispatch key when a column does not decode
     */
    OutboxRow decode(Stored s) {
        try {
            if (s.attempt == null || s.attempt < 0 || s.attempt > Integer.MAX_VALUE) {
                throw new SerializationException("stored attempt " + s.attempt + " is out of range");
            }
            if (s.visibleAfter == null) {
                throw new SerializationException("stored visible_after is NULL");
            }
            if (s.input == null) {
                throw new SerializationException("stored input is NULL");
            }
            OutboxStatus status = OutboxStatus.fromToken(s.status);
            // a token is the claim's while the row stays claimed; settles and re-arms leave it behind
            long claimToken = status == OutboxStatus.CLAIMED && s.claimToken != null ? s.claimToken : 0L;
            return new OutboxRow(
                    s.dispatchKey,
                    StoredRows.workflowId(s.workflowId),
                    s.ordinal,
                    s.runId == null ? null : RunId.parse(s.runId),
                    s.namespace == null ? OutboxRow.DEFAULT_ROUTE : s.namespace,
                    s.taskQueue == null ? OutboxRow.DEFAULT_ROUTE : s.taskQueue,
                    s.node,
                    s.activityType,
                    decodeInput(s.input),
                    status,
                    s.attempt.intValue(),
                    Times.fromNanos(s.visibleAfter),
                    Times.fromNanos(s.claimedAt),
                    claimToken,
                    s.traceContext,
                    s.priority == null ? OutboxRow.MIN_PRIORITY : s.priority.intValue());
        } catch (SerializationException | InvalidArgumentException e) {
            throw new SerializationException(
                    "stored outbox row " + s.dispatchKey + " cannot be decoded: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new SerializationException("stored outbox row " + s.dispatchKey + " cannot be decoded: " + e, e);
        }
    }

    /**
     * @param rows stored rows
     * @return the decoded rows in the same order
     */
    List<OutboxRow> decodeAll(List<Stored> rows) {
        List<OutboxRow> out = new ArrayList<>(rows.size());
        for (Stored s : rows) {
            out.add(decode(s));
        }
        return out;
    }

    private Payload decodeInput(byte[] bytes) {
        return codec.decodePayload(bytes);
    }

    /** A row as stored, column by column ({@link #COLUMNS}). */
    record Stored(
            String dispatchKey,
            String workflowId,
            Long ordinal,
            String runId,
            String namespace,
            String taskQueue,
            String node,
            String activityType,
            byte[] input,
            String status,
            Long attempt,
            Long visibleAfter,
            Long claimedAt,
            Long claimToken,
            String traceContext,
            Long priority) {}
}
