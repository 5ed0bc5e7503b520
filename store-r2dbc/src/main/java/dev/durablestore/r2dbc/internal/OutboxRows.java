package dev.durablestore.r2dbc.internal;

import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.BIGINT;
import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.INT;
import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.PAYLOAD;
import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.TEXT;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.internal.Rows;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.FailureHistory;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.StoredRows;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Row;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Mono;

/** The {@code outbox} table: row validation, encoding, insertion and decoding (O1, O6, S5, S8). */
final class OutboxRows {

    /** The columns every row-returning outbox statement selects, in this order. */
    static final String COLUMNS = "dispatch_key, workflow_id, ordinal, run_id, namespace, task_queue, node, "
            + "activity_type, input, status, attempt, visible_after, claimed_at, claim_token, "
            + "trace_context, priority, failures";
    /** How many columns {@link #COLUMNS} names. */
    static final int COLUMN_COUNT = 17;

    /**
     * The columns a claim reads back: those of {@link #COLUMNS} but the three the claim sets itself
     * ({@code status}, {@code claimed_at}, {@code claim_token}), whose values the claim already holds
     * ({@link #claimed}), in this order.
     */
    static final String CLAIMED_COLUMNS = "dispatch_key, workflow_id, ordinal, run_id, namespace, task_queue, "
            + "node, activity_type, input, attempt, visible_after, trace_context, priority, failures";
    /** How many columns {@link #CLAIMED_COLUMNS} names. */
    static final int CLAIMED_COLUMN_COUNT = 14;

    /**
     * {@link #CLAIMED_COLUMNS} as PostgreSQL's claim returns them from its {@code UPDATE outbox o}:
     * the input as hex text ({@code encode}), read with {@code hexInput}. r2dbc-postgresql reads
     * {@code bytea} in the text format, and decodes that text through a regular expression, the
     * dearest column of a claimed row; the same bytes as hex text are one plain pass.
     */
    static final String CLAIMED_RETURNING_PG = "o.dispatch_key, o.workflow_id, o.ordinal, o.run_id, o.namespace, "
            + "o.task_queue, o.node, o.activity_type, encode(o.input, 'hex') AS input, o.attempt, o.visible_after, "
            + "o.trace_context, o.priority, o.failures";

    /**
     * The columns every staging path writes (O1, O10, O59, O62), each with its value for a staged
     * row, in this order: the one list from which come the column list of each staging
     * {@code INSERT}, the arrays of the grouped appends ({@link GroupedAppendStatement}) and the
     * values of a row inserted alone ({@link #INSERT_OR_IGNORE}). A new column is one line here.
     */
    static final List<ArrayRelation.Column<Staged>> STAGED = List.of(
            new ArrayRelation.Column<>("dispatch_key", TEXT, s -> s.row().dispatchKey()),
            new ArrayRelation.Column<>(
                    "workflow_id", TEXT, s -> s.row().workflowId().toString()),
            new ArrayRelation.Column<>("ordinal", BIGINT, s -> s.row().ordinal()),
            new ArrayRelation.Column<>(
                    "run_id",
                    TEXT,
                    s -> s.row().runId() == null ? null : s.row().runId().toString()),
            new ArrayRelation.Column<>("namespace", TEXT, s -> s.row().namespace()),
            new ArrayRelation.Column<>("task_queue", TEXT, s -> s.row().taskQueue()),
            new ArrayRelation.Column<>("node", TEXT, s -> s.row().node()),
            new ArrayRelation.Column<>("activity_type", TEXT, s -> s.row().activityType()),
            new ArrayRelation.Column<>("input", PAYLOAD, s -> s.encoded().input()),
            new ArrayRelation.Column<>("status", TEXT, s -> s.row().status().token()),
            new ArrayRelation.Column<>("attempt", BIGINT, s -> (long) s.row().attempt()),
            new ArrayRelation.Column<>("visible_after", BIGINT, s -> s.encoded().visibleAfterNanos()),
            new ArrayRelation.Column<>("claimed_at", BIGINT, s -> s.encoded().claimedAtNanos()),
            new ArrayRelation.Column<>("settled_at", BIGINT, Staged::settledAt),
            new ArrayRelation.Column<>("trace_context", TEXT, s -> s.row().traceContext()),
            new ArrayRelation.Column<>("priority", INT, s -> s.row().priority()));

    /** One row of {@link #STAGED} per execution, bound as it is ({@link ArrayRelation#row}). */
    private static final ArrayRelation<Staged> ONE_ROW =
            ArrayRelation.<Staged>named("outbox").columns(STAGED).build();

    /** The names of {@link #STAGED}, in order: the outbox columns a staging {@code INSERT} lists. */
    static final List<String> STAGED_NAMES = ONE_ROW.names();

    /** Insert-or-ignore by dispatch key (O9, E21), one row per execution; the same text on PostgreSQL and H2. */
    static final String INSERT_OR_IGNORE = "INSERT INTO outbox (" + String.join(", ", STAGED_NAMES) + ") VALUES ("
            + markers(STAGED_NAMES.size()) + ") ON CONFLICT DO NOTHING";

    /**
     * A row as a staging statement sends it.
     *
     * @param append the index of the append (or step) that stages it in its statement; 0 outside
     *     a grouped append
     * @param encoded the row, validated and encoded
     * @param settledAt the settle time of a row staged in a terminal status, or {@code null}
     */
    record Staged(int append, OutboxRowEncoder.Encoded encoded, Long settledAt) {

        /**
         * @param append the index of the append that stages it, or 0
         * @param encoded the row
         * @param nowNanos the store clock, recorded as the settle time of a row staged settled
         * @return the row as sent
         */
        static Staged of(int append, OutboxRowEncoder.Encoded encoded, long nowNanos) {
            return new Staged(append, encoded, encoded.row().status().isLive() ? null : nowNanos);
        }

        /** @return the row */
        OutboxRow row() {
            return encoded.row();
        }
    }

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
            values.add(ONE_ROW.row(Staged.of(0, e, nowNanos)));
        }
        return Sql.updateEach(c, INSERT_OR_IGNORE, values);
    }

    /**
     * Keeps the first row of each dispatch key: a later one is ignored, as insert-or-ignore in list
     * order does (O9).
     *
     * @param rows encoded rows, in list order
     * @return the first row of each key, in list order ({@code rows} itself when no key repeats)
     */
    static List<OutboxRowEncoder.Encoded> firstPerKey(List<OutboxRowEncoder.Encoded> rows) {
        if (rows.size() < 2) {
            return rows;
        }
        Set<String> keys = new HashSet<>(rows.size() * 2);
        List<OutboxRowEncoder.Encoded> first = null;
        for (int i = 0; i < rows.size(); i++) {
            OutboxRowEncoder.Encoded r = rows.get(i);
            if (!keys.add(r.row().dispatchKey())) {
                if (first == null) {
                    first = new ArrayList<>(rows.subList(0, i));
                }
            } else if (first != null) {
                first.add(r);
            }
        }
        return first == null ? rows : first;
    }

    /** @return {@code $1, $2, …, $n} */
    private static String markers(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            sb.append(i > 1 ? ", $" : "$").append(i);
        }
        return sb.toString();
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
                Sql.longAt(row, 15),
                Sql.textAt(row, 16));
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
                Sql.longAt(row, 12),
                Sql.textAt(row, 13));
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
            return Rows.stored(
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
                    s.priority == null ? OutboxRow.MIN_PRIORITY : s.priority.intValue(),
                    FailureHistory.decode(s.failures)); // NULL in rows older than the column
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
            Long priority,
            String failures) {}
}
