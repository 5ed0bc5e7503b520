package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.core.internal.OutboxRowEncoder;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmarks' window on the PostgreSQL statements of {@code store-r2dbc} (in its package, so
 * that {@code PGCLIENT} sends every client the store's own text and values, built by the store's
 * own code, not a copy that could drift): the stream claim ({@link Claims}, {@link SqlDialect}),
 * the grouped fenced complete ({@link GroupedFencedSettles}) and the multi-row staging
 * ({@link OutboxStaging}, {@link ArrayRelation}). Not part of the store: it lives in the
 * benchmarks module only.
 */
public final class StoreStatements {

    /**
     * A typed SQL {@code NULL} among a statement's values.
     *
     * @param type the Java type the store binds the NULL as
     */
    public record Null(Class<?> type) {}

    /**
     * A statement's text and the values of one execution, in marker order ({@code $1} first), each
     * a {@link String}, {@link Long}, {@link Integer}, an array of one of them, or a {@link Null}.
     *
     * @param sql the text, with {@code $n} markers
     * @param values the values
     */
    public record Bound(String sql, Object[] values) {}

    /** {@link OutboxStaging}'s relation of staged rows. */
    private static final ArrayRelation<OutboxRows.Staged> ROWS = ArrayRelation.<OutboxRows.Staged>named("ob")
            .columns(OutboxRows.STAGED)
            .build();

    /** How the arrays of a staging statement travel; the statement's text is the same either way. */
    public enum ArrayForm {
        /**
         * As the store sends them ({@link ArrayRelation#put}): each array as the text of its array
         * literal, the offsets and lengths too.
         */
        LITERAL,
        /**
         * As Java arrays ({@code String[]}, {@code Long[]}, {@code Integer[]}), for the client to encode:
         * what a client that types parameters from the server's description needs (the Vert.x client).
         */
        JAVA
    }

    /** The number of columns a claim returns before {@code next_due}. */
    public static final int CLAIMED_COLUMN_COUNT = OutboxRows.CLAIMED_COLUMN_COUNT;

    private StoreStatements() {}

    /**
     * The claim a store's claim stream sends on PostgreSQL ({@code Claims.claimPostgres} with the
     * next due time, {@code SqlDialect.Postgres.claimWithNextDue}) on the default route, no node,
     * nothing held, no dispatch policy: the rows come back as {@link OutboxRows#CLAIMED_RETURNING_PG}
     * (the input as hex text), each followed by {@code next_due}; when nothing is claimed, one row
     * whose columns are all NULL but {@code next_due}.
     *
     * @param nowNanos the claim time (the store's clock, epoch nanoseconds)
     * @param token the claim token written on every claimed row
     * @param limit the most rows to claim
     * @return the statement and its values
     */
    public static Bound claim(long nowNanos, long token, int limit) {
        Sql.Params p = new Sql.Params();
        Long claimedAt = nowNanos;
        String set = "status = 'claimed', claimed_at = " + p.add(claimedAt) + ", claim_token = " + p.add(token)
                + ", claimed_by = " + p.add(Sql.text(null));
        String due = "status = 'pending' AND visible_after <= " + p.add(nowNanos) + route(p);
        String limitMarker = p.add(limit);
        String pending = "status = 'pending'" + route(p);
        String sql =
                SqlDialect.POSTGRES.claimWithNextDue(set, due, limitMarker, OutboxRows.CLAIMED_RETURNING_PG, pending);
        return new Bound(sql, values(p.values()));
    }

    /** {@code Claims.filter} for the default route and a scope without a node. */
    private static String route(Sql.Params p) {
        return " AND namespace = " + p.add(OutboxRow.DEFAULT_ROUTE) + " AND task_queue = "
                + p.add(OutboxRow.DEFAULT_ROUTE) + " AND node IS NULL";
    }

    /**
     * The fenced completes of claimed rows as the store sends concurrent completes on PostgreSQL:
     * one statement ({@code GroupedFencedSettles.SETTLE_ALIKE}, bound as the store binds it) that
     * changes each row still claimed under its token and returns the keys it changed.
     *
     * @param dispatchKeys the rows
     * @param claimTokens the token each row's claim wrote, in the same order
     * @param nowNanos the settle time
     * @return the statement and its values (the arrays as {@code String[]} and {@code Long[]})
     */
    public static Bound completeAll(List<String> dispatchKeys, List<Long> claimTokens, long nowNanos) {
        if (dispatchKeys.size() != claimTokens.size()) {
            throw new IllegalArgumentException(
                    dispatchKeys.size() + " dispatchKeys but " + claimTokens.size() + " claimTokens");
        }
        return new Bound(GroupedFencedSettles.SETTLE_ALIKE, new Object[] {
            dispatchKeys.toArray(new String[0]), claimTokens.toArray(new Long[0]), OutboxStatus.DONE.token(), nowNanos
        });
    }

    /**
     * The staging statement of {@code appendOutboxBatch} ({@code OutboxStaging.insert}, skipping
     * stored keys) for one batch that fits one statement.
     *
     * @param rows the batch, encoded as the store encodes it, distinct keys
     * @param nowNanos the store's clock (the settle time of rows staged settled)
     * @param form how the arrays travel
     * @return the statement and its values
     */
    public static Bound stage(List<OutboxRowEncoder.Encoded> rows, long nowNanos, ArrayForm form) {
        List<OutboxRows.Staged> staged = new ArrayList<>(rows.size());
        for (OutboxRowEncoder.Encoded e : rows) {
            staged.add(OutboxRows.Staged.of(0, e, nowNanos));
        }
        NamedStatement.Arguments args = new NamedStatement.Arguments();
        if (form == ArrayForm.LITERAL) {
            ROWS.put(staged, args);
        } else {
            putJavaArrays(staged, args);
        }
        // OutboxStaging.statements(), the ON CONFLICT DO NOTHING form
        NamedStatement.Builder b = NamedStatement.builder(args.form());
        NamedStatement statement = b.build("INSERT INTO outbox (" + String.join(", ", OutboxRows.STAGED_NAMES)
                + ") SELECT " + ROWS.values(OutboxRows.STAGED_NAMES, b) + " FROM " + ROWS.unnest(b)
                + " ON CONFLICT DO NOTHING");
        return new Bound(statement.sql(), values(statement.bind(args)));
    }

    /** {@link ArrayRelation#put} with Java arrays in place of the literals' text (the same names). */
    private static void putJavaArrays(List<OutboxRows.Staged> rows, NamedStatement.Arguments args) {
        int n = rows.size();
        for (ArrayRelation.Column<OutboxRows.Staged> c : OutboxRows.STAGED) {
            String name = "ob." + c.name();
            switch (c.type()) {
                case PAYLOAD -> {
                    Integer[] offsets = new Integer[n];
                    Integer[] lengths = new Integer[n];
                    java.io.ByteArrayOutputStream payload = new java.io.ByteArrayOutputStream();
                    for (int r = 0; r < n; r++) {
                        byte[] bytes = (byte[]) c.value().apply(rows.get(r));
                        offsets[r] = payload.size() + 1;
                        lengths[r] = bytes.length;
                        payload.writeBytes(bytes);
                    }
                    args.put("ob.off", offsets);
                    args.put("ob.len", lengths);
                    args.putPayload(name, payload.toByteArray());
                }
                case TEXT -> args.put(name, column(rows, c, new String[n]));
                case BIGINT -> args.put(name, column(rows, c, new Long[n]));
                case INT -> args.put(name, column(rows, c, new Integer[n]));
            }
        }
    }

    private static <T> T[] column(List<OutboxRows.Staged> rows, ArrayRelation.Column<OutboxRows.Staged> c, T[] into) {
        for (int r = 0; r < into.length; r++) {
            @SuppressWarnings("unchecked")
            T v = (T) c.type().javaType().cast(c.value().apply(rows.get(r)));
            into[r] = v;
        }
        return into;
    }

    private static Object[] values(Object[] store) {
        Object[] values = store.clone();
        for (int i = 0; i < values.length; i++) {
            if (values[i] instanceof Sql.Null n) {
                values[i] = new Null(n.type());
            }
        }
        return values;
    }
}
