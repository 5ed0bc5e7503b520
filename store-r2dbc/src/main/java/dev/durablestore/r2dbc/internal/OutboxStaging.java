package dev.durablestore.r2dbc.internal;

import dev.durablestore.core.internal.OutboxRowEncoder;
import io.r2dbc.spi.Connection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Staging ({@code appendOutboxBatch}, O8–O11) and re-arm ({@code rearmPending}, O12–O15) on
 * PostgreSQL: the rows of one call travel as arrays ({@link ArrayRelation} over
 * {@link OutboxRows#STAGED}) and are written by one {@code INSERT … SELECT … FROM unnest(…)}, so a
 * batch of 1,000 rows is one statement instead of 1,000 executions. A batch that fits one statement
 * ({@value #MAX_ROWS} rows, {@value #MAX_BYTES} payload bytes) commits by itself, one round trip;
 * a larger one is cut into statements, in list order, inside one transaction. Either way the batch
 * is stored whole or not at all (O11, O12), and each call has its own statements and its own
 * outcome.
 *
 * <p>Per row the statements keep what one execution per row did: staging skips a key already
 * stored ({@code ON CONFLICT DO NOTHING}, O9); a key repeated within the batch is sent once, its
 * first row, as insert-or-ignore in list order keeps it. A re-arm makes a stored row pending with
 * the given visibility and keeps its other columns, or inserts an unknown one as given
 * ({@code ON CONFLICT (dispatch_key) DO UPDATE}, O13, O14); a key repeated within the list is sent
 * once, with its first row's values and its last row's visibility, as the first occurrence
 * inserted or re-armed the row and each later one re-armed it again. Keys are sent in key order,
 * so two nodes re-arming overlapping sets lock their rows in one order.
 */
final class OutboxStaging {

    /** The most rows one statement carries; a larger batch takes more, in one transaction. */
    static final int MAX_ROWS = 10_000;
    /**
     * The most payload bytes one statement carries (a row larger than that goes alone): a payload
     * that is not ASCII travels as hex digits, twice its size.
     */
    static final long MAX_BYTES = 8L << 20;

    private static final ArrayRelation<OutboxRows.Staged> ROWS = ArrayRelation.<OutboxRows.Staged>named("ob")
            .columns(OutboxRows.STAGED)
            .build();

    /** What is done with a row whose key is stored already. */
    private enum OnConflict {
        /** Staging (O9): the stored row keeps its values. */
        SKIP("ON CONFLICT DO NOTHING"),
        /**
         * Re-arm (O14, O15): the stored row, whatever its status, becomes pending with the given
         * visibility and no claim or settle time, keeping its other columns.
         */
        REARM("ON CONFLICT (dispatch_key) DO UPDATE SET status = 'pending', visible_after = excluded.visible_after, "
                + "claimed_at = NULL, settled_at = NULL");

        private final String sql;

        OnConflict(String sql) {
            this.sql = sql;
        }
    }

    /** The statements, by what they do on a conflict and how their payload travels. */
    private static final Map<OnConflict, Map<PayloadForm, NamedStatement>> STATEMENTS = statements();

    private static Map<OnConflict, Map<PayloadForm, NamedStatement>> statements() {
        Map<OnConflict, Map<PayloadForm, NamedStatement>> all = new EnumMap<>(OnConflict.class);
        for (OnConflict onConflict : OnConflict.values()) {
            Map<PayloadForm, NamedStatement> forms = new EnumMap<>(PayloadForm.class);
            for (PayloadForm form : PayloadForm.values()) {
                NamedStatement.Builder p = NamedStatement.builder(form);
                forms.put(
                        form,
                        p.build("INSERT INTO outbox (" + String.join(", ", OutboxRows.STAGED_NAMES) + ") SELECT "
                                + ROWS.values(OutboxRows.STAGED_NAMES, p) + " FROM " + ROWS.unnest(p) + " "
                                + onConflict.sql));
            }
            all.put(onConflict, forms);
        }
        return all;
    }

    private final Db db;
    private final LongSupplier now;

    /**
     * @param db database access (PostgreSQL)
     * @param now the store clock in epoch nanoseconds, read when the write runs: the settle time
     *     of rows staged in a terminal status
     */
    OutboxStaging(Db db, LongSupplier now) {
        this.db = db;
        this.now = now;
    }

    /**
     * O8–O11: inserts the rows whose keys are not stored, the first row of a repeated key.
     *
     * @param rows validated, encoded rows, at least one
     * @return completes once the batch committed
     */
    Mono<Void> stage(List<OutboxRowEncoder.Encoded> rows) {
        return Mono.defer(() -> write("appendOutboxBatch", OnConflict.SKIP, OutboxRows.firstPerKey(rows)));
    }

    /**
     * O12–O15: re-arms the stored rows, inserts the others as given (pending).
     *
     * @param rows validated, encoded rows, pending, at least one
     * @return completes once the list committed
     */
    Mono<Void> rearm(List<OutboxRowEncoder.Encoded> rows) {
        return Mono.defer(() -> write("rearmPending", OnConflict.REARM, onePerKeyInKeyOrder(rows)));
    }

    private Mono<Void> write(String operation, OnConflict onConflict, List<OutboxRowEncoder.Encoded> rows) {
        List<List<OutboxRowEncoder.Encoded>> statements = statements(rows);
        Function<Connection, Mono<Void>> work = c -> {
            long nowNanos = now.getAsLong();
            return Flux.fromIterable(statements)
                    .concatMap(chunk -> insert(c, onConflict, chunk, nowNanos))
                    .then();
        };
        // one statement is atomic by itself: no BEGIN and COMMIT around it
        return statements.size() == 1 ? db.autocommit(operation, 1, work) : db.write(operation, work);
    }

    private static Mono<Long> insert(
            Connection c, OnConflict onConflict, List<OutboxRowEncoder.Encoded> rows, long nowNanos) {
        List<OutboxRows.Staged> staged = new ArrayList<>(rows.size());
        for (OutboxRowEncoder.Encoded e : rows) {
            staged.add(OutboxRows.Staged.of(0, e, nowNanos));
        }
        NamedStatement.Arguments args = new NamedStatement.Arguments();
        ROWS.put(staged, args);
        NamedStatement statement = STATEMENTS.get(onConflict).get(args.form());
        return Sql.update(c, statement.sql(), statement.bind(args));
    }

    /**
     * @param rows the rows of one call, at least one
     * @return the rows cut into statements of at most {@link #MAX_ROWS} rows and {@link #MAX_BYTES}
     *     payload bytes (a larger row alone), in list order
     */
    static List<List<OutboxRowEncoder.Encoded>> statements(List<OutboxRowEncoder.Encoded> rows) {
        if (rows.size() <= MAX_ROWS && payloadBytes(rows) <= MAX_BYTES) {
            return List.of(rows);
        }
        List<List<OutboxRowEncoder.Encoded>> statements = new ArrayList<>();
        List<OutboxRowEncoder.Encoded> current = new ArrayList<>();
        long bytes = 0;
        for (OutboxRowEncoder.Encoded e : rows) {
            long size = e.input().length;
            if (!current.isEmpty() && (current.size() == MAX_ROWS || bytes + size > MAX_BYTES)) {
                statements.add(current);
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(e);
            bytes += size;
        }
        statements.add(current);
        return statements;
    }

    private static long payloadBytes(List<OutboxRowEncoder.Encoded> rows) {
        long bytes = 0;
        for (OutboxRowEncoder.Encoded e : rows) {
            bytes += e.input().length;
        }
        return bytes;
    }

    /**
     * @return one row per key, in key order: the first row of the key with the visibility of its
     *     last (O13, O14: the rows of one list apply in list order)
     */
    static List<OutboxRowEncoder.Encoded> onePerKeyInKeyOrder(List<OutboxRowEncoder.Encoded> rows) {
        Map<String, OutboxRowEncoder.Encoded> byKey = new LinkedHashMap<>();
        for (OutboxRowEncoder.Encoded e : rows) {
            byKey.merge(
                    e.row().dispatchKey(),
                    e,
                    (first, later) -> new OutboxRowEncoder.Encoded(
                            first.row(), first.input(), later.visibleAfterNanos(), first.claimedAtNanos()));
        }
        List<OutboxRowEncoder.Encoded> sorted = new ArrayList<>(byKey.values());
        sorted.sort(Comparator.comparing(e -> e.row().dispatchKey()));
        return sorted;
    }
}
