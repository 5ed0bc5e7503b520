package dev.durablestore.bench.pg;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.event.Event;
import dev.durablestore.bench.CommitCounter;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Workload;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code PG} (issue 6): the PostgreSQL backend ({@code store-r2dbc} on one PostgreSQL server on this
 * machine, see {@link PgServer}) beside the SQLite store, measured in the same runs: P1's appends per
 * second and P2's drained rows per second, with SQLite {@code FULL} paired with
 * {@code synchronous_commit=on} and {@code NORMAL} with {@code synchronous_commit=off}; then claims
 * per second with 1, 2 and 4 nodes (separate stores, each with its own connection pool) draining one
 * staged outbox, checked exactly-once. The issue sets no target numbers for these, so the section
 * holds context figures only, no targets and no {@code RESULT} lines; a run that hands a row out
 * twice or leaves one undrained fails the workload.
 */
public final class PostgresComparison implements Workload {

    /** Appends in flight in P1, as in {@code AppendThroughput}. */
    public static final int IN_FLIGHT = 64;
    /** Completes in flight per node while draining, as in {@code OutboxRoundTrip}. */
    public static final int CONCURRENCY = 64;
    /**
     * Connections in each node's pool (system property {@code durablestore.bench.pg.poolSize}, default
     * 16, the README's example). Every store operation holds a connection for its whole transaction,
     * so this bounds the transactions a node has open at once; the other operations in flight wait
     * for a connection. The store's {@code LISTEN} connection is extra. On a 2-core machine the
     * server is CPU-bound long before the pool is the limit: in a trial, 64 connections per node were
     * no faster on P1, while four nodes then hold 256 server processes and take seconds to connect.
     */
    public static final int POOL_SIZE = Integer.getInteger("durablestore.bench.pg.poolSize", 16);
    /**
     * The PostgreSQL backend does some hundreds to a couple of thousand operations per second on a
     * 2-core machine where the SQLite store does several thousand, so this workload runs a tenth of
     * P1's appends and of P2's rows (at least 1,000 each), both stores on the same counts, and three
     * {@code --quick} runs stay near a minute.
     */
    public static final int SCALE_DOWN = 10;
    /** The node counts of the claims comparison. */
    public static final List<Integer> NODE_COUNTS = List.of(1, 2, 4);

    /** The embedded server's {@code max_connections}: both node sets of a run, their listeners, and spare. */
    private static final int MAX_CONNECTIONS = (NODE_COUNTS.get(NODE_COUNTS.size() - 1) + 1) * (POOL_SIZE + 1) + 20;

    /** A durability pairing: SQLite's {@code synchronous} beside PostgreSQL's {@code synchronous_commit}. */
    private record Mode(String sqlite, String pg) {
        String label() {
            return "synchronous_commit=" + pg + " vs SQLite " + sqlite;
        }
    }

    private static final List<Mode> MODES = List.of(new Mode("FULL", "on"), new Mode("NORMAL", "off"));

    @Override
    public String id() {
        return "PG";
    }

    /** @return none: the issue sets no targets for PostgreSQL, so every figure is context */
    @Override
    public List<Target> targets() {
        return List.of();
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int appends = Math.max(1_000, ctx.sizes().appends() / SCALE_DOWN);
        int fanOut = ctx.sizes().outboxFanOut();
        int rows = Math.max(1_000, ctx.sizes().outboxRows() / SCALE_DOWN) / fanOut * fanOut;
        Results results = new Results();

        ctx.log("PG starting PostgreSQL");
        long startBegan = System.nanoTime();
        try (PgServer server = PgServer.start(ctx.dir(), MAX_CONNECTIONS)) {
            double startSeconds = (System.nanoTime() - startBegan) / 1e9;
            Map<String, String> settings = server.settings();
            ctx.log(String.format("PG server up in %.1f s: %s", startSeconds, settings));

            ctx.log("PG warm-up");
            sqliteAppends(ctx, "NORMAL", 500);
            sqliteDrain(ctx, "NORMAL", 1_000 / fanOut * fanOut, fanOut, new double[1]);
            CommitCounter warmCounter = new CommitCounter();
            try (PgNodes warm = PgNodes.open(server, 1, POOL_SIZE, "on", warmCounter)) {
                pgAppends(warm, 500);
                pgDrain(warm, warmCounter, 1_000 / fanOut * fanOut, fanOut, new double[1]);
            }

            for (int run = 1; run <= ctx.runs(); run++) {
                measure(ctx, server, run, appends, rows, fanOut, results);
            }
            return results.section(method(server, settings, appends, rows, fanOut), startSeconds);
        }
    }

    /**
     * One run: P1 and P2 on both stores in both pairings, then the claims drains, on two sets of
     * nodes opened for this run on fresh schemas ({@code on}: as many nodes as the largest count;
     * {@code off}: one), emptied between measurements.
     */
    private static void measure(RunContext ctx, PgServer server, int run, int appends, int rows, int fanOut,
            Results results) {
        boolean sqliteFirst = run % 2 == 1;
        int maxNodes = NODE_COUNTS.get(NODE_COUNTS.size() - 1);
        CommitCounter durableCounter = new CommitCounter();
        CommitCounter fastCounter = new CommitCounter();
        try (PgNodes durable = PgNodes.open(server, maxNodes, POOL_SIZE, "on", durableCounter);
                PgNodes fast = PgNodes.open(server, 1, POOL_SIZE, "off", fastCounter)) {
            for (Mode mode : MODES) {
                ctx.log("PG run " + run + "/" + ctx.runs() + " P1 " + mode.label());
                PgNodes nodes = mode.pg().equals("on") ? durable : fast;
                double sqlite;
                double pg;
                if (sqliteFirst) {
                    sqlite = sqliteAppends(ctx, mode.sqlite(), appends);
                    pg = pgAppends(nodes, appends);
                } else {
                    pg = pgAppends(nodes, appends);
                    sqlite = sqliteAppends(ctx, mode.sqlite(), appends);
                }
                ctx.log(String.format("PG   P1 PostgreSQL %.0f appends/s, SQLite %.0f appends/s", pg, sqlite));
                results.p1.add(mode, pg, sqlite);
            }
            for (Mode mode : MODES) {
                ctx.log("PG run " + run + "/" + ctx.runs() + " P2 " + mode.label());
                boolean on = mode.pg().equals("on");
                PgNodes nodes = on ? durable : fast;
                CommitCounter counter = on ? durableCounter : fastCounter;
                double[] sqliteStaging = new double[1];
                double[] pgStaging = new double[1];
                double sqlite;
                double pg;
                if (sqliteFirst) {
                    sqlite = sqliteDrain(ctx, mode.sqlite(), rows, fanOut, sqliteStaging);
                    pg = pgDrain(nodes, counter, rows, fanOut, pgStaging);
                } else {
                    pg = pgDrain(nodes, counter, rows, fanOut, pgStaging);
                    sqlite = sqliteDrain(ctx, mode.sqlite(), rows, fanOut, sqliteStaging);
                }
                ctx.log(String.format("PG   P2 PostgreSQL %.0f rows/s (staged at %.0f/s, %.1f rows per claim), "
                        + "SQLite %.0f rows/s (staged at %.0f/s)", pg, pgStaging[0], counter.rowsPerClaim(),
                        sqlite, sqliteStaging[0]));
                results.p2.add(mode, pg, sqlite);
                results.staging.add(mode, pgStaging[0], sqliteStaging[0]);
                if (on) {
                    results.rowsPerClaim.add(counter.rowsPerClaim());
                }
            }
            for (int count : NODE_COUNTS) {
                ctx.log("PG run " + run + "/" + ctx.runs() + " claims, " + count + " node(s)");
                Drives.Drain drain = claimsDrain(durable, count, rows, fanOut);
                ctx.log(String.format("PG   %d node(s): %.0f rows/s, rows per node %s", count, drain.rowsPerSecond(),
                        drain.perNode()));
                results.claims.computeIfAbsent(count, c -> new ArrayList<>()).add(drain.rowsPerSecond());
                results.lastSpread = drain.perNode();
            }
        }
    }

    private static String method(PgServer server, Map<String, String> settings, int appends, int rows, int fanOut) {
        String shown = settings.entrySet().stream().map(e -> "`" + e.getKey() + "=" + e.getValue() + "`")
                .collect(Collectors.joining(", "));
        return "The PostgreSQL backend (`R2dbcReactiveStore` over r2dbc-postgresql and an r2dbc-pool pool of "
                + POOL_SIZE + " connections per node, plus each store's `LISTEN` connection) on "
                + server.origin() + ", beside the SQLite store (`SqliteReactiveStore`, WAL, fresh file per "
                + "measurement), both measured in every run, alternating which goes first. Server: " + shown
                + ". The durable pairing is SQLite `synchronous=FULL` beside `synchronous_commit=on` (every commit "
                + "waits for its WAL flush, `fsync=on`, `full_page_writes=on`); the fast pairing is SQLite "
                + "`NORMAL` beside `synchronous_commit=off`, set per session when each connection starts (a commit "
                + "returns before its WAL flush: a crash of the server or of the machine may lose the last commits, "
                + "up to 3 × `wal_writer_delay` (0.6 s by default), but never corrupts; SQLite `NORMAL` in WAL "
                + "mode may lose the last commits on a power loss or OS crash, not on an application crash). "
                + "Each run opens its PostgreSQL nodes on fresh schemas (the `search_path` of their connections; "
                + "pools filled before any timing), empties the tables between measurements and drops the schemas "
                + "afterwards. Sizes are a tenth of P1's and P2's, the same for both stores. P1: " + appends
                + " appends, one `WorkflowStarted` each on a new workflow (expected head 0), " + IN_FLIGHT
                + " in flight. P2: " + rows + " rows staged with `appendWithOutbox` (" + fanOut + " per workflow, "
                + "64 in flight, timed separately), then drained by `claimStream(maxBatch 100)` → "
                + "`flatMap(complete, " + CONCURRENCY + ")`. Claims: " + rows + " rows staged with "
                + "`appendOutboxBatch` (untimed), then drained at once by 1, 2 and 4 nodes — separate "
                + "`R2dbcReactiveStore` instances, each with its own pool — each running `claimStream(maxBatch 100)` "
                + "→ `flatMap(complete, " + CONCURRENCY + ")`, with `synchronous_commit=on`; the figure is the "
                + "total rows/s over the nodes. Every drain checks exactly-once (no row handed out twice; at the end "
                + "every row `done`, counted by status in SQL on PostgreSQL, none pending or claimed on SQLite) and "
                + "fails the workload otherwise. All nodes and the server share this machine's cores, so more "
                + "nodes add concurrency, not hardware.";
    }

    private static double sqliteAppends(RunContext ctx, String synchronous, int n) {
        Path db = ctx.freshDb("pg-p1-sqlite-" + synchronous);
        List<Event> events = Drives.startEvents(n);
        try (SqliteReactiveStore store = Fixtures.openStore(db, synchronous)) {
            return Drives.appendRate(store, events, IN_FLIGHT);
        } finally {
            ctx.delete(db);
        }
    }

    private static double pgAppends(PgNodes nodes, int n) {
        List<Event> events = Drives.startEvents(n);
        nodes.truncate();
        return Drives.appendRate(nodes.stores().get(0), events, IN_FLIGHT);
    }

    private static double sqliteDrain(RunContext ctx, String synchronous, int rows, int fanOut, double[] staging) {
        Path db = ctx.freshDb("pg-p2-sqlite-" + synchronous);
        try (SqliteReactiveStore store = Fixtures.openStore(db, synchronous)) {
            staging[0] = Drives.stageWithOutbox(store, Fixtures.workflows(rows / fanOut), fanOut);
            Drives.Drain drain = Drives.drain(List.of(store), rows, CONCURRENCY);
            long left = store.countInflight("default").block();
            if (drain.duplicates() != 0 || left != 0) {
                throw new IllegalStateException("SQLite P2 drain not exactly-once: " + drain.duplicates()
                        + " rows handed out twice, " + left + " rows still pending or claimed");
            }
            return drain.rowsPerSecond();
        } finally {
            ctx.delete(db);
        }
    }

    private static double pgDrain(PgNodes nodes, CommitCounter counter, int rows, int fanOut, double[] staging) {
        nodes.truncate();
        ReactiveStore store = nodes.stores().get(0);
        staging[0] = Drives.stageWithOutbox(store, Fixtures.workflows(rows / fanOut), fanOut);
        counter.reset();
        Drives.Drain drain = Drives.drain(List.of(store), rows, CONCURRENCY);
        checkExactlyOnce(nodes, drain, rows);
        return drain.rowsPerSecond();
    }

    private static Drives.Drain claimsDrain(PgNodes nodes, int count, int rows, int fanOut) {
        nodes.truncate();
        Drives.stageRows(nodes.stores().get(0), Fixtures.workflows(rows / fanOut), fanOut);
        Drives.Drain drain = Drives.drain(nodes.stores().subList(0, count), rows, CONCURRENCY);
        checkExactlyOnce(nodes, drain, rows);
        return drain;
    }

    private static void checkExactlyOnce(PgNodes nodes, Drives.Drain drain, long rows) {
        Map<String, Long> statuses = nodes.outboxStatusCounts();
        if (drain.duplicates() != 0 || !statuses.equals(Map.of("done", rows))) {
            throw new IllegalStateException("PostgreSQL drain on " + drain.perNode().size() + " node(s) not "
                    + "exactly-once: " + drain.duplicates() + " rows handed out twice; outbox rows by status "
                    + statuses + ", expected {done=" + rows + "}");
        }
    }

    /** Per-run figures of PostgreSQL and SQLite for each durability pairing. */
    private static final class Figures {
        private final Map<Mode, List<Double>> pg = new LinkedHashMap<>();
        private final Map<Mode, List<Double>> sqlite = new LinkedHashMap<>();

        void add(Mode mode, double pgValue, double sqliteValue) {
            pg.computeIfAbsent(mode, m -> new ArrayList<>()).add(pgValue);
            sqlite.computeIfAbsent(mode, m -> new ArrayList<>()).add(sqliteValue);
        }

        List<Double> pg(Mode mode) {
            return pg.getOrDefault(mode, List.of());
        }

        List<Double> sqlite(Mode mode) {
            return sqlite.getOrDefault(mode, List.of());
        }
    }

    /** Everything the runs measured, and the section built from it. */
    private static final class Results {
        private final Figures p1 = new Figures();
        private final Figures p2 = new Figures();
        private final Figures staging = new Figures();
        private final Map<Integer, List<Double>> claims = new LinkedHashMap<>();
        private final List<Double> rowsPerClaim = new ArrayList<>();
        private List<Long> lastSpread = List.of();

        Section section(String method, double startSeconds) {
            Section section = new Section("PG", "PostgreSQL beside SQLite", method);
            for (Mode mode : MODES) {
                section.sideBySide("P1 appends/s, 64 in flight, " + mode.label(), "appends/s",
                        "PostgreSQL, synchronous_commit=" + mode.pg(), p1.pg(mode), "SQLite " + mode.sqlite(),
                        p1.sqlite(mode));
            }
            for (Mode mode : MODES) {
                section.sideBySide("P2 drained rows/s, claimStream + complete (64), " + mode.label(), "rows/s",
                        "PostgreSQL, synchronous_commit=" + mode.pg(), p2.pg(mode), "SQLite " + mode.sqlite(),
                        p2.sqlite(mode));
            }
            for (Mode mode : MODES) {
                section.sideBySide("P2 staging with appendWithOutbox (64 in flight), " + mode.label(), "rows/s",
                        "PostgreSQL, synchronous_commit=" + mode.pg(), staging.pg(mode), "SQLite " + mode.sqlite(),
                        staging.sqlite(mode));
            }
            List<Double> one = claims.get(NODE_COUNTS.get(0));
            for (int nodes : NODE_COUNTS.subList(1, NODE_COUNTS.size())) {
                section.sideBySide("PostgreSQL claims/s (claimStream + complete, 64 per node), " + nodes
                        + " nodes vs 1", "rows/s", nodes + " nodes", claims.get(nodes), "1 node", one);
            }
            for (int nodes : NODE_COUNTS) {
                section.figure("PostgreSQL claims/s, " + nodes + (nodes == 1 ? " node" : " nodes")
                        + ", synchronous_commit=on (total over the nodes)", claims.get(nodes), "rows/s");
            }
            section.figure("PostgreSQL: rows per claim during the P2 drain, synchronous_commit=on", rowsPerClaim,
                    "");
            section.note(String.format(java.util.Locale.ROOT, "Embedded server start %.1f s (not in any figure). "
                    + "Rows received per node in the last %d-node drain: %s. Every drain handed each row out once "
                    + "and left every row done.", startSeconds, NODE_COUNTS.get(NODE_COUNTS.size() - 1), lastSpread));
            return section;
        }
    }
}
