package dev.durablestore.bench.pg;

import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.api.event.Event;
import dev.durablestore.bench.raw.RawDb;
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.core.codec.EventCodec;
import java.util.List;
import java.util.Map;

/**
 * The raw PostgreSQL baselines of one run, plain JDBC with no store around them, on the tables the
 * store itself created (a node set's schema, emptied before each): the batched drain on 1, 2 and 4
 * connections ({@link RawPgDrain}), the drain in the store's shape with the store's statements
 * ({@link RawPgShapedDrain}, the ceiling of the store's 64-in-flight drain against db-scheduler),
 * the multi-row guarded append ({@link RawPgAppend}) and the store's own statement pattern
 * ({@link RawPgStorePattern}). Rows are staged untimed by {@link PgNodes#stage} (written by the
 * store's {@code appendOutboxBatch}).
 */
final class RawBaselines {

    /** Claim sizes of the raw drain's ceiling figures: the store's 64 in flight, and half of it. */
    static final int[] CEILING_BATCHES = {64, 32};

    /** Connection counts of the raw drain; the first is the judged baseline. */
    static final List<Integer> DRAIN_CONNECTIONS = List.of(1, 2, 4);
    /**
     * The multi-row append runs this many times the store's appends: it is some ten to thirty times
     * faster, and a loop of a few tens of milliseconds would time the clock, not the database.
     */
    static final int APPEND_SCALE = 10;
    /**
     * The raw drains drain this many times P2's rows, as the store's claims drains and db-scheduler
     * do ({@code PostgresComparison.CLAIMS_SCALE}): a tenth of P2 is drained in a fraction of a
     * second, short enough for one pause on the shared cores to halve a figure.
     */
    static final int DRAIN_SCALE = 3;

    /**
     * @param maxClaim the claim cap of the drain in the store's shape
     * @return its label (its rate, and its CPU row)
     */
    static String shapedLabel(int maxClaim) {
        return "raw drain in the store's shape (1 claim in flight sized to the free room of "
                + RawPgShapedDrain.IN_FLIGHT + " in flight, at most " + maxClaim
                + ", the store's claim; 1 settle group in flight, the store's settle), 2 connections";
    }

    /**
     * The judged baselines of one run.
     *
     * @param drain the batched drain on one connection
     * @param append the multi-row guarded append
     * @param shaped the faster of the two drains in the store's shape (the ceiling of
     *     the store's 64-in-flight drain against db-scheduler)
     * @param shapedCounts that drain's rows per claim and per settle statement
     * @param shapedTurns the drain in the store's shape whose claim and settle take turns (claims of
     *     up to {@link RawPgShapedDrain#MAX_BATCH}), as the store's claims and settles of about 64 do
     */
    record Judged(
            Measured drain,
            Measured append,
            Measured shaped,
            RawPgShapedDrain.Result shapedCounts,
            Measured shapedTurns) {}

    private final RawRows rows = new RawRows(EventCodec.create());
    private final RawPgDrain drain = new RawPgDrain(rows);
    private final RawPgAppend append = new RawPgAppend(rows);
    private final RawPgStorePattern pattern = new RawPgStorePattern(rows);

    /**
     * @param server the server
     * @param nodes the store's schema (node 0 stages the rows)
     * @param meter measures CPU
     * @param appends the store's appends: the store pattern's, {@link #APPEND_SCALE} times that for the
     *     multi-row append
     * @param total the store's rows: the settles', {@link #DRAIN_SCALE} times that for the batched drain
     * @param fanOut rows per workflow
     * @param poolSize the store pattern's connections (the store's pool size)
     * @param figures receives every figure
     * @return the judged baselines
     */
    Judged measure(
            PgServer server,
            PgNodes nodes,
            CpuMeter meter,
            int appends,
            int total,
            int fanOut,
            int poolSize,
            MeteredFigures figures) {
        Measured judgedDrain = null;
        int drainRows = total * DRAIN_SCALE;
        for (int connections : DRAIN_CONNECTIONS) {
            Measured m = figures.add(
                    "raw batched drain (claim 100 … FOR UPDATE SKIP LOCKED, complete = ANY), " + connections
                            + (connections == 1 ? " connection" : " connections"),
                    "rows/s",
                    timedOnStaged(
                            server,
                            nodes,
                            meter,
                            drainRows,
                            fanOut,
                            connections,
                            false,
                            (pool, claimed) -> drain.drain(pool, connections, drainRows)));
            judgedDrain = judgedDrain == null ? m : judgedDrain;
        }
        // the ceilings of the store's drain: with 64 rows in flight its claims carry at most 64 rows,
        // and about half that when claims and settles overlap
        for (int batch : CEILING_BATCHES) {
            figures.add(
                    "raw batched drain, claims of " + batch + " (ceiling of 64 in flight), 1 connection",
                    "rows/s",
                    timedOnStaged(
                            server,
                            nodes,
                            meter,
                            drainRows,
                            fanOut,
                            1,
                            false,
                            (pool, claimed) -> drain.drain(pool, 1, drainRows, batch)));
        }
        // the ceiling of the store's 64-in-flight drain against db-scheduler: the store's drain without the store, in
        // both of its forms
        Measured shaped = null;
        Measured shapedTurns = null;
        RawPgShapedDrain.Result shapedCounts = null;
        for (int maxClaim : new int[] {RawPgShapedDrain.MAX_BATCH, RawPgShapedDrain.OVERLAPPED}) {
            RawPgShapedDrain shapedDrain = new RawPgShapedDrain(rows, maxClaim);
            RawPgShapedDrain.Result[] counts = new RawPgShapedDrain.Result[1];
            Measured m = figures.add(
                    shapedLabel(maxClaim),
                    "rows/s",
                    timedOnStaged(server, nodes, meter, drainRows, fanOut, 2, false, (pool, claimed) -> {
                        counts[0] = shapedDrain.drain(pool, drainRows);
                        return counts[0].rowsPerSecond();
                    }));
            if (maxClaim == RawPgShapedDrain.MAX_BATCH) {
                shapedTurns = m;
            }
            if (shaped == null || m.perSecond() > shaped.perSecond()) {
                shaped = m;
                shapedCounts = counts[0];
            }
        }
        Measured judgedAppend = figures.add(
                "raw multi-row guarded append (" + RawPgAppend.GROUP + " per INSERT … unnest), 1 connection",
                "appends/s",
                timedOnEmpty(
                        server,
                        nodes,
                        meter,
                        appends * APPEND_SCALE,
                        1,
                        (pool, events) -> append.append(pool, events)));
        figures.add(
                "raw store pattern: BEGIN/SELECT/INSERT/COMMIT per append, " + RawPgStorePattern.CALLERS + " callers, "
                        + poolSize + " connections",
                "appends/s",
                timedOnEmpty(server, nodes, meter, appends, poolSize, (pool, events) -> pattern.appends(pool, events)));
        figures.add(
                "raw store pattern: BEGIN/UPDATE/COMMIT per settle, " + RawPgStorePattern.CALLERS + " callers, "
                        + poolSize + " connections",
                "rows/s",
                timedOnStaged(server, nodes, meter, total, fanOut, poolSize, true, pattern::settles));
        return new Judged(judgedDrain, judgedAppend, shaped, shapedCounts, shapedTurns);
    }

    /** A timed loop over events. */
    @FunctionalInterface
    private interface EventLoop {
        double run(HikariDataSource pool, List<Event> events);
    }

    /** A timed loop over staged rows. */
    @FunctionalInterface
    private interface RowLoop {
        double run(HikariDataSource pool, List<String> claimedKeys);
    }

    private static Measured timedOnEmpty(
            PgServer server, PgNodes nodes, CpuMeter meter, int appends, int connections, EventLoop loop) {
        nodes.truncate();
        List<Event> events = Drives.startEvents(appends);
        try (HikariDataSource pool = JdbcPool.open(server, nodes.schema(), connections)) {
            CpuMeter.Sample before = meter.sample();
            double rate = loop.run(pool, events);
            return new Measured(rate, meter.since(before, appends));
        }
    }

    private static Measured timedOnStaged(
            PgServer server,
            PgNodes nodes,
            CpuMeter meter,
            int total,
            int fanOut,
            int connections,
            boolean claimFirst,
            RowLoop loop) {
        nodes.stage(total, fanOut);
        List<String> claimed = claimFirst ? claimAll(server, nodes) : List.of();
        try (HikariDataSource pool = JdbcPool.open(server, nodes.schema(), connections)) {
            CpuMeter.Sample before = meter.sample();
            double rate = loop.run(pool, claimed);
            Measured m = new Measured(rate, meter.since(before, total));
            if (!nodes.outboxStatusCounts().equals(Map.of("done", (long) total))) {
                throw new IllegalStateException("a raw loop left outbox rows " + nodes.outboxStatusCounts());
            }
            return m;
        }
    }

    /** Marks every staged row claimed (untimed, before the settles) and returns their keys. */
    private static List<String> claimAll(PgServer server, PgNodes nodes) {
        server.execute("UPDATE " + nodes.schema() + ".outbox SET status = 'claimed', claimed_at = " + RawDb.nowNanos());
        return server.query("SELECT dispatch_key FROM " + nodes.schema() + ".outbox").stream()
                .map(r -> r.get(0))
                .toList();
    }
}
