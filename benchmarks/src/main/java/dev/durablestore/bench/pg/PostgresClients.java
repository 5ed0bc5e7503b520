package dev.durablestore.bench.pg;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.bench.CommitCounter;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Workload;
import dev.durablestore.bench.raw.RawDb;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.r2dbc.internal.StoreStatements;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code PGCLIENT} (issue 41, item 2): the store's own PostgreSQL statements through each
 * PostgreSQL client a backend could be built on, on one server, with the CPU each costs per row.
 * The clients ({@link PgClient}): r2dbc-postgresql as the store uses it and tuned
 * ({@link R2dbcPgClient}), the Vert.x reactive client ({@link VertxPgClient}) and pgjdbc on a
 * bounded scheduler ({@link JdbcPgClient}). The statements ({@link StoreStatements}) are the
 * store's text and values, built by the store's own code: the stream claim
 * ({@code FOR UPDATE SKIP LOCKED}, {@value #CLAIM} rows), the grouped fenced complete, and
 * {@code appendOutboxBatch}'s multi-row {@code INSERT … FROM unnest(…) ON CONFLICT DO NOTHING}.
 *
 * <p>Per client and run: a drain of pre-staged rows (claim up to {@value #CLAIM}, complete the
 * claimed rows by one statement as the store groups concurrent completes, claim again, until a
 * claim comes back empty; every row must end {@code done}) and a staging of fresh rows
 * in statements of {@value #BATCH} (one after another; every row must land pending). The clients
 * take turns going first. Selected alone with {@code ./bench.sh --only PGCLIENT}.
 */
public final class PostgresClients implements Workload {

    /** Rows per claim: the store's 64 completes in flight per node. */
    static final int CLAIM = PostgresComparison.CONCURRENCY;
    /** Rows per staging statement. */
    static final int BATCH = PostgresStaging.BATCH;
    /** Rows per workflow. */
    private static final int FAN_OUT = 10;
    /**
     * Rows drained and staged untimed by each client before the first timed run: 1,560 claims and
     * 100 staging statements. After 20,000 (312 claims) the JIT compiler threads were still the
     * JVM's busiest in the timed drains (JFR: 13 s of compilation in a 104 s run), and every
     * client spent 50 to 90 ms of JVM CPU per 1,000 drained rows.
     */
    private static final int WARM_UP = 100_000;
    /** Connections of each reactive client (the store's pool per node). */
    private static final int POOL_SIZE = PostgresComparison.POOL_SIZE;
    /** Threads and connections of pgjdbc's scheduler. */
    private static final int JDBC_THREADS = 4;
    /** Vert.x event loop threads (one per core of this machine's two). */
    private static final int EVENT_LOOPS = 2;
    /** Every client's connections, the store node's pool and listener, the admin connection, and room. */
    private static final int MAX_CONNECTIONS = 3 * POOL_SIZE + JDBC_THREADS + POOL_SIZE + 1 + 1 + 10;

    private static final Duration TIMEOUT = Duration.ofMinutes(10);
    /** The JIT compiler's time, logged per timed measurement: compiling in a timed phase is JVM CPU. */
    private static final CompilationMXBean COMPILER = ManagementFactory.getCompilationMXBean();
    /** How long the JVM's idle CPU is measured, once per run. */
    private static final Duration IDLE = Duration.ofSeconds(2);

    private final OutboxRowEncoder encoder = new OutboxRowEncoder(EventCodec.create());

    @Override
    public String id() {
        return "PGCLIENT";
    }

    @Override
    public List<Target> targets() {
        return List.of();
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int drainRows = Math.max(10 * BATCH, ctx.sizes().outboxRows()) / BATCH * BATCH;
        int stageRows = Math.max(10 * BATCH, ctx.sizes().stagedRows()) / BATCH * BATCH;
        MeteredFigures drains = new MeteredFigures();
        MeteredFigures stagings = new MeteredFigures();
        Map<String, List<Measured>> drainsBy = new LinkedHashMap<>();
        Map<String, List<Measured>> stagesBy = new LinkedHashMap<>();
        List<Double> idleJvm = new ArrayList<>();
        ctx.log("PGCLIENT starting PostgreSQL");
        try (PgServer server = PgServer.start(ctx.dir(), MAX_CONNECTIONS);
                PgNodes nodes = PgNodes.open(server, 1, POOL_SIZE, "on", new CommitCounter())) {
            CpuMeter meter = new CpuMeter(server.postmasterPid());
            String schema = nodes.schema();
            List<PgClient> clients = new ArrayList<>();
            try {
                clients.add(R2dbcPgClient.open(server, schema, POOL_SIZE, false));
                clients.add(R2dbcPgClient.open(server, schema, POOL_SIZE, true));
                clients.add(VertxPgClient.open(server, schema, POOL_SIZE, EVENT_LOOPS));
                clients.add(JdbcPgClient.open(server, schema, JDBC_THREADS));
                for (PgClient client : clients) {
                    ctx.log("PGCLIENT warm-up (untimed): " + WARM_UP + " rows drained and staged by " + client.label());
                    drain(nodes, client, WARM_UP, meter);
                    stage(nodes, client, batches(WARM_UP), WARM_UP, meter);
                }
                for (int run = 1; run <= ctx.runs(); run++) {
                    double idle = idleJvmCpu(meter);
                    idleJvm.add(idle);
                    ctx.log(String.format(
                            "PGCLIENT run %d/%d: JVM CPU %.1f ms per second idle, every client open",
                            run, ctx.runs(), idle));
                    List<List<OutboxRowEncoder.Encoded>> batches = batches(stageRows);
                    for (PgClient client : turn(clients, run)) {
                        long jit = COMPILER.getTotalCompilationTime();
                        Measured drained = drains.add(client.label(), "rows/s", drain(nodes, client, drainRows, meter));
                        long drainJit = COMPILER.getTotalCompilationTime() - jit;
                        jit = COMPILER.getTotalCompilationTime();
                        Measured staged =
                                stagings.add(client.label(), "rows/s", stage(nodes, client, batches, stageRows, meter));
                        long stageJit = COMPILER.getTotalCompilationTime() - jit;
                        drainsBy.computeIfAbsent(client.label(), l -> new ArrayList<>())
                                .add(lessJit(drained, drainJit, drainRows));
                        stagesBy.computeIfAbsent(client.label(), l -> new ArrayList<>())
                                .add(lessJit(staged, stageJit, stageRows));
                        ctx.log(String.format(
                                "PGCLIENT run %d/%d %s: drain %.0f rows/s (JVM %.1f, server %.1f ms per 1,000 rows, "
                                        + "JIT %d ms), staging %.0f rows/s (JVM %.1f, server %.1f ms per 1,000 rows, "
                                        + "JIT %d ms)",
                                run,
                                ctx.runs(),
                                client.label(),
                                drained.perSecond(),
                                drained.cpu().jvm(),
                                drained.cpu().server(),
                                drainJit,
                                staged.perSecond(),
                                staged.cpu().jvm(),
                                staged.cpu().server(),
                                stageJit));
                    }
                }
            } finally {
                clients.forEach(PgClient::close);
            }
        }
        Section section = new Section(
                "PGCLIENT", "PostgreSQL clients compared on the store's own statements", method(drainRows, stageRows));
        section.figure(
                "JVM CPU while idle, every client open (the floor under each figure of CPU per row)",
                idleJvm,
                "ms per second");
        drains.addTo(section, "drain: ");
        stagings.addTo(section, "staging: ");
        compare(section, "drain", drainsBy);
        compare(section, "staging", stagesBy);
        return section;
    }

    /**
     * @return {@code measured} with the JIT compiler's time in it ({@code jitMillis}, wall time of
     *     the compiler threads, about their CPU) taken out of the JVM's CPU per 1,000 rows: the
     *     client's own cost once compiled, which the compiler still working through a timed phase
     *     (up to 700 ms in a drain of 20,000 rows after 100,000 untimed) would otherwise swamp
     */
    private static Measured lessJit(Measured measured, long jitMillis, int rows) {
        double jvm = Math.max(0, measured.cpu().jvm() - jitMillis * 1_000.0 / rows);
        return new Measured(
                measured.perSecond(), new CpuMeter.Cost(jvm, measured.cpu().server()));
    }

    /**
     * Each other client against the first (r2dbc-postgresql as the store uses it), run by run: its
     * rate over the first's, and the first's JVM CPU per row over its own, JIT compilation left out
     * (above 1: it costs less).
     */
    private static void compare(Section section, String what, Map<String, List<Measured>> byClient) {
        List<String> labels = new ArrayList<>(byClient.keySet());
        List<Measured> today = byClient.get(labels.get(0));
        for (String label : labels.subList(1, labels.size())) {
            List<Measured> other = byClient.get(label);
            section.sideBySide(
                    what + " rows/s, " + label + " against r2dbc-postgresql as the store uses it",
                    "rows/s",
                    "this client",
                    other.stream().map(Measured::perSecond).toList(),
                    "r2dbc today",
                    today.stream().map(Measured::perSecond).toList());
            section.sideBySide(
                    what + " JVM CPU ms per 1,000 rows less JIT compilation, r2dbc-postgresql as the store uses it "
                            + "against " + label,
                    "ms",
                    "r2dbc today",
                    today.stream().map(m -> m.cpu().jvm()).toList(),
                    "this client",
                    other.stream().map(m -> m.cpu().jvm()).toList());
        }
    }

    /** @return the JVM's CPU milliseconds per second over {@link #IDLE} with nothing running but the clients' threads */
    private static double idleJvmCpu(CpuMeter meter) {
        CpuMeter.Sample before = meter.sample();
        long began = System.nanoTime();
        LockSupport.parkNanos(IDLE.toNanos());
        double seconds = (System.nanoTime() - began) / 1e9;
        return meter.since(before, 1_000).jvm() / seconds;
    }

    /** @return the clients in this run's order: each goes first in turn */
    private static List<PgClient> turn(List<PgClient> clients, int run) {
        List<PgClient> order = new ArrayList<>(clients.size());
        int first = (run - 1) % clients.size();
        for (int i = 0; i < clients.size(); i++) {
            order.add(clients.get((first + i) % clients.size()));
        }
        return order;
    }

    /**
     * Drains {@code rows} pre-staged rows: claim, complete the claimed rows by one statement, claim
     * again, until a claim comes back empty.
     */
    private static Measured drain(PgNodes nodes, PgClient client, int rows, CpuMeter meter) {
        nodes.stage(rows, FAN_OUT);
        Mono<Integer> round = Mono.defer(() -> {
            long token = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
            return client.claim(StoreStatements.claim(RawDb.nowNanos(), token, CLAIM))
                    .flatMap(claimed -> {
                        if (claimed.isEmpty()) {
                            return Mono.just(0);
                        }
                        List<String> keys = new ArrayList<>(claimed.size());
                        for (PgClient.ClaimedRow row : claimed) {
                            keys.add(row.dispatchKey());
                        }
                        List<Long> tokens = Collections.nCopies(keys.size(), token);
                        return client.keys(StoreStatements.completeAll(keys, tokens, RawDb.nowNanos()))
                                .map(done -> {
                                    if (done.size() != keys.size()) {
                                        throw new IllegalStateException(client.label() + ": a complete of "
                                                + keys.size() + " claimed rows changed " + done.size());
                                    }
                                    return done.size();
                                });
                    });
        });
        CpuMeter.Sample before = meter.sample();
        long began = System.nanoTime();
        round.repeat().takeWhile(n -> n > 0).then().block(TIMEOUT);
        long nanos = System.nanoTime() - began;
        CpuMeter.Cost cost = meter.since(before, rows);
        check(nodes, Map.of("done", (long) rows), client.label() + " drained");
        return new Measured(Stats.perSecond(rows, nanos), cost);
    }

    /** Stages the batches, one statement each, one after another. */
    private static Measured stage(
            PgNodes nodes, PgClient client, List<List<OutboxRowEncoder.Encoded>> batches, int rows, CpuMeter meter) {
        nodes.truncate();
        long now = RawDb.nowNanos();
        List<StoreStatements.Bound> statements = new ArrayList<>(batches.size());
        for (List<OutboxRowEncoder.Encoded> batch : batches) {
            statements.add(StoreStatements.stage(batch, now, client.arrayForm()));
        }
        CpuMeter.Sample before = meter.sample();
        long began = System.nanoTime();
        Long landed = Flux.fromIterable(statements)
                .concatMap(client::update)
                .reduce(0L, Long::sum)
                .block(TIMEOUT);
        long nanos = System.nanoTime() - began;
        CpuMeter.Cost cost = meter.since(before, rows);
        if (landed == null || landed != rows) {
            throw new IllegalStateException(client.label() + " staged " + landed + " rows of " + rows);
        }
        check(nodes, Map.of("pending", (long) rows), client.label() + " staged");
        return new Measured(Stats.perSecond(rows, nanos), cost);
    }

    private static void check(PgNodes nodes, Map<String, Long> expected, String who) {
        Map<String, Long> statuses = nodes.outboxStatusCounts();
        if (!statuses.equals(expected)) {
            throw new IllegalStateException(who + ": outbox rows by status " + statuses + ", expected " + expected);
        }
    }

    /** @return {@code rows} fresh pending rows, {@value #FAN_OUT} per workflow, encoded, in batches of {@value #BATCH} */
    private List<List<OutboxRowEncoder.Encoded>> batches(int rows) {
        Instant now = Instant.now();
        List<OutboxRow> all = new ArrayList<>(rows);
        for (WorkflowId w : Fixtures.workflows(rows / FAN_OUT)) {
            all.addAll(Fixtures.pendingRows(w, FAN_OUT, now));
        }
        List<List<OutboxRowEncoder.Encoded>> batches = new ArrayList<>();
        for (int from = 0; from < all.size(); from += BATCH) {
            batches.add(encoder.forStaging(all.subList(from, Math.min(all.size(), from + BATCH)), "rows"));
        }
        return batches;
    }

    private static String method(int drainRows, int stageRows) {
        return "One PostgreSQL server on this machine (see PG), the store's tables on a fresh schema, and each client "
                + "with connections of its own to it, all open at once. The statements are the store's own, text and "
                + "values built by store-r2dbc's code (`StoreStatements`, benchmarks only): the claim stream's claim "
                + "(`FOR UPDATE SKIP LOCKED`, with the route's next due time, up to " + CLAIM + " rows, the input "
                + "returned as hex), the grouped fenced complete the store sends for concurrent completes (`UPDATE outbox o "
                + "… FROM unnest($1::text[], $2::bigint[]) … AND o.claim_token = u.claim_token AND (o.status || '') = "
                + "'claimed' RETURNING o.dispatch_key`, keys and tokens bound as Java arrays), and `appendOutboxBatch`'s `INSERT … SELECT … FROM unnest(…) ON "
                + "CONFLICT DO NOTHING` (the arrays as the store sends them, array-literal text, or as Java arrays where the client says so below; the payloads as one text). Each run, for each "
                + "client in turn (each run another goes first): a drain of " + drainRows + " pending rows staged by "
                + "the store (" + FAN_OUT + " per workflow; one loop: claim up to " + CLAIM + ", complete them by one "
                + "statement, claim again, until a claim takes nothing; every row must end `done`), then a staging of "
                + stageRows + " fresh rows, "
                + BATCH + " per statement, one statement after another (every row must land pending; the statements' "
                + "values built before the clock starts). Sessions with `synchronous_commit=on`. Untimed first: "
                + WARM_UP + " rows drained and staged by each client. CPU per 1,000 rows: this JVM's (process CPU "
                + "time, every client's threads) and the server's (postmaster and backends, from /proc), over each "
                + "timed drain or staging (the JIT compiler's threads included: the log gives its time in each; the JVM's "
                + "idle CPU, every client open, is measured once per run; the rows comparing each client with r2dbc "
                + "as the store uses it take the JIT's time out of the JVM's CPU). pgjdbc gets the same text with a `?` for each `$n` (a marker used twice "
                + "bound twice).";
    }
}
