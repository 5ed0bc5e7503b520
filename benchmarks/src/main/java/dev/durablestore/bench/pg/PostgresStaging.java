package dev.durablestore.bench.pg;

import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.bench.CommitCounter;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Target.Comparison;
import dev.durablestore.bench.TargetResult;
import dev.durablestore.bench.Workload;
import dev.durablestore.core.codec.EventCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;

/**
 * {@code PGSTAGE} (issue 41): staging on PostgreSQL. The store's {@code appendOutboxBatch} of
 * {@value #BATCH} rows per call, one call after another on one node, against the raw multi-row
 * staging of the same rows ({@link RawPgStage}: one {@code INSERT … SELECT … FROM unnest(…) ON
 * CONFLICT DO NOTHING} per {@value #BATCH} rows, plain JDBC, one connection), both with
 * {@code synchronous_commit=on}, on the same server (see {@link PgServer}) and the store's own
 * tables, taking turns going first; beside each the JVM's and the server's CPU per 1,000 rows
 * ({@link CpuMeter}). Selected alone with {@code ./bench.sh --only PGSTAGE}.
 */
public final class PostgresStaging implements Workload {

    /** Rows per {@code appendOutboxBatch} call and per raw statement. */
    static final int BATCH = 1_000;
    /** Rows per workflow (as P2's staging). */
    private static final int FAN_OUT = 10;
    /**
     * Rows staged untimed by each stager before the first timed run: 200 calls, so that what runs
     * once per call (the store's Reactor chain and driver statement, the raw loop's JDBC statement)
     * is compiled, not only what runs once per row. With 20 calls the first timed runs of the
     * store spent 18 to 23 ms of JVM CPU per 1,000 rows and the later ones 7.5 to 9.
     */
    private static final int WARM_UP = 200_000;
    /** The node's pool and its listener, the raw connection, the admin connection, and room. */
    private static final int MAX_CONNECTIONS = PostgresComparison.POOL_SIZE + 1 + 1 + 1 + 10;

    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    /** {@code PG-stage-vs-raw}: the store's staging against the raw multi-row staging. */
    static final Target STAGE_VS_RAW = Target.ratio(
            "PG-stage-vs-raw",
            "PostgreSQL store appendOutboxBatch (1,000 rows per call, one call at a time, 1 node, "
                    + "synchronous_commit=on) vs the raw multi-row INSERT … SELECT … FROM unnest(…) ON CONFLICT DO "
                    + "NOTHING of the same rows",
            "rows/s",
            "raw multi-row INSERT of arrays, 1,000 rows per statement (plain JDBC, 1 connection)",
            Comparison.AT_LEAST,
            0.8);

    /** {@code PG-stage-jvm-cpu}: the JVM's CPU per 1,000 rows the store stages. */
    static final Target STAGE_JVM_CPU = Target.absolute(
            "PG-stage-jvm-cpu",
            "JVM CPU per 1,000 rows staged by the PostgreSQL store's appendOutboxBatch (1,000 rows per call)",
            "ms",
            "raw multi-row INSERT of arrays (plain JDBC)",
            Comparison.AT_MOST,
            20);

    @Override
    public String id() {
        return "PGSTAGE";
    }

    @Override
    public List<Target> targets() {
        return List.of(STAGE_VS_RAW, STAGE_JVM_CPU);
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int rows = Math.max(10 * BATCH, ctx.sizes().stagedRows()) / BATCH * BATCH;
        TargetResult.Builder stageVsRaw = STAGE_VS_RAW.builder();
        TargetResult.Builder jvmCpu = STAGE_JVM_CPU.builder();
        MeteredFigures metered = new MeteredFigures();
        String storeLabel = "store appendOutboxBatch, " + BATCH + " rows per call, 1 node";
        String rawLabel =
                "raw multi-row INSERT … FROM unnest(…) ON CONFLICT DO NOTHING, " + BATCH + " rows per statement";
        RawPgStage raw = new RawPgStage(EventCodec.create());
        ctx.log("PGSTAGE starting PostgreSQL");
        try (PgServer server = PgServer.start(ctx.dir(), MAX_CONNECTIONS);
                PgNodes nodes = PgNodes.open(server, 1, PostgresComparison.POOL_SIZE, "on", new CommitCounter());
                HikariDataSource pool = JdbcPool.open(server, nodes.schema(), 1)) {
            CpuMeter meter = new CpuMeter(server.postmasterPid());
            ctx.log("PGSTAGE warm-up (untimed): " + WARM_UP + " rows by each stager");
            List<List<OutboxRow>> warm = batches(WARM_UP);
            storeStage(nodes, warm, WARM_UP, meter);
            rawStage(nodes, raw, pool, warm, WARM_UP, meter);
            for (int run = 1; run <= ctx.runs(); run++) {
                List<List<OutboxRow>> batches = batches(rows);
                boolean storeFirst = run % 2 == 1;
                Measured store;
                Measured rawStaged;
                if (storeFirst) {
                    store = storeStage(nodes, batches, rows, meter);
                    rawStaged = rawStage(nodes, raw, pool, batches, rows, meter);
                } else {
                    rawStaged = rawStage(nodes, raw, pool, batches, rows, meter);
                    store = storeStage(nodes, batches, rows, meter);
                }
                ctx.log(String.format(
                        "PGSTAGE run %d/%d: store %.0f rows/s (JVM %.1f, server %.1f ms per 1,000 rows), "
                                + "raw %.0f rows/s (JVM %.1f, server %.1f ms per 1,000 rows)",
                        run,
                        ctx.runs(),
                        store.perSecond(),
                        store.cpu().jvm(),
                        store.cpu().server(),
                        rawStaged.perSecond(),
                        rawStaged.cpu().jvm(),
                        rawStaged.cpu().server()));
                stageVsRaw.run(store.perSecond(), rawStaged.perSecond());
                jvmCpu.run(store.cpu().jvm(), rawStaged.cpu().jvm());
                metered.add(storeLabel, "rows/s", store);
                metered.add(rawLabel, "rows/s", rawStaged);
            }
        }
        Section section = new Section("PGSTAGE", "Staging on PostgreSQL against a raw multi-row INSERT", method(rows))
                .target(stageVsRaw.build())
                .target(jvmCpu.build());
        metered.addTo(section);
        return section;
    }

    /** @return {@code rows} fresh pending rows, {@value #FAN_OUT} per workflow, in batches of {@value #BATCH} */
    private static List<List<OutboxRow>> batches(int rows) {
        Instant now = Instant.now();
        List<OutboxRow> all = new ArrayList<>(rows);
        for (WorkflowId w : Fixtures.workflows(rows / FAN_OUT)) {
            all.addAll(Fixtures.pendingRows(w, FAN_OUT, now));
        }
        List<List<OutboxRow>> batches = new ArrayList<>();
        for (int from = 0; from < all.size(); from += BATCH) {
            batches.add(all.subList(from, Math.min(all.size(), from + BATCH)));
        }
        return batches;
    }

    private static Measured storeStage(PgNodes nodes, List<List<OutboxRow>> batches, int rows, CpuMeter meter) {
        nodes.truncate();
        ReactiveStore store = nodes.stores().get(0);
        CpuMeter.Sample before = meter.sample();
        long began = System.nanoTime();
        Flux.fromIterable(batches).concatMap(store::appendOutboxBatch).then().block(TIMEOUT);
        long nanos = System.nanoTime() - began;
        CpuMeter.Cost cost = meter.since(before, rows);
        checkStaged(nodes, rows, "the store");
        return new Measured(Stats.perSecond(rows, nanos), cost);
    }

    private static Measured rawStage(
            PgNodes nodes,
            RawPgStage raw,
            HikariDataSource pool,
            List<List<OutboxRow>> batches,
            int rows,
            CpuMeter meter) {
        nodes.truncate();
        CpuMeter.Sample before = meter.sample();
        double rate = raw.stage(pool, batches, rows);
        CpuMeter.Cost cost = meter.since(before, rows);
        checkStaged(nodes, rows, "the raw INSERT");
        return new Measured(rate, cost);
    }

    private static void checkStaged(PgNodes nodes, long rows, String who) {
        Map<String, Long> statuses = nodes.outboxStatusCounts();
        if (!statuses.equals(Map.of("pending", rows))) {
            throw new IllegalStateException(
                    who + " staged outbox rows by status " + statuses + ", expected {pending=" + rows + "}");
        }
    }

    private static String method(int rows) {
        return "One PostgreSQL server on this machine (see PG: embedded, `fsync=on`, `synchronous_commit=on`, "
                + "`full_page_writes=on`, or the server of `DURABLE_STORE_PG_URL`), the store's tables on a fresh "
                + "schema. Each run stages " + rows + " fresh pending rows (" + FAN_OUT + " per workflow, the "
                + "benchmark's small JSON inputs) twice, taking turns going first, from empty tables each time: "
                + "by the store (one node, a pool of " + PostgresComparison.POOL_SIZE + ", `appendOutboxBatch` of "
                + BATCH + " rows per call, one call after another) and by plain JDBC with no store (pgjdbc over "
                + "HikariCP, one connection, autocommit): one `INSERT INTO outbox (…) SELECT * FROM "
                + "unnest(?::text[], …, ?::bytea[], …) ON CONFLICT DO NOTHING` per " + BATCH + " rows, the inputs "
                + "encoded as the store encodes them. Both in sessions with `synchronous_commit=on`; every row "
                + "must be stored pending (counted by status in SQL) or the workload fails. Untimed first: "
                + WARM_UP + " rows by each. CPU per 1,000 rows: this JVM's (process CPU time) and the server's "
                + "(the postmaster and its backends, from /proc), over each timed staging.";
    }
}
