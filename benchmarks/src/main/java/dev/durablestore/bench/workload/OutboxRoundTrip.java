package dev.durablestore.bench.workload;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.codec.EventCodec;
import dev.durablestore.bench.CommitCounter;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.TargetResult;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Target.Comparison;
import dev.durablestore.bench.Workload;
import dev.durablestore.bench.raw.RawDb;
import dev.durablestore.bench.raw.RawOutboxLoop;
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * P2: the outbox drain. Rows are staged with {@code appendWithOutbox} (fan-out per workflow), then
 * drained — claimed through {@code claimStream} and completed one by one at dispatcher concurrency
 * 64 — and the drain's rows per second are compared with raw-JDBC drains of the same rows: batched
 * ({@code UPDATE … RETURNING} claims of 100, completes of 100 per transaction) and one row per
 * transaction (SELECT then UPDATE, then a transaction for the complete).
 */
public final class OutboxRoundTrip implements Workload {

    /** Rows the dispatcher works on at once. */
    public static final int CONCURRENCY = 64;
    private static final int RAW_BATCH = 100;
    private static final List<String> MODES = List.of("NORMAL", "FULL");

    static final Target NORMAL_VS_BATCHED = Target.ratio("P2-normal-vs-batched",
            "drained rows/s, NORMAL: store (claimStream + complete, concurrency 64) vs raw JDBC batched by 100",
            "rows/s", "raw, batches of 100", Comparison.AT_LEAST, 0.7);
    static final Target FULL_VS_BATCHED = Target.ratio("P2-full-vs-batched",
            "drained rows/s, FULL: store (claimStream + complete, concurrency 64) vs raw JDBC batched by 100",
            "rows/s", "raw, batches of 100", Comparison.AT_LEAST, 0.7);
    static final Target FULL_VS_RAW1 = Target.ratio("P2-full-vs-raw1",
            "drained rows/s, FULL: store vs raw JDBC one row per transaction (SELECT+UPDATE claim, then complete)",
            "rows/s", "raw, 1 row/txn", Comparison.AT_LEAST, 10.0);

    private final RawOutboxLoop raw = new RawOutboxLoop(new RawRows(EventCodec.create()));

    @Override
    public String id() {
        return "P2";
    }

    @Override
    public List<Target> targets() {
        return List.of(NORMAL_VS_BATCHED, FULL_VS_BATCHED, FULL_VS_RAW1);
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int fanOut = ctx.sizes().outboxFanOut();
        int rows = ctx.sizes().outboxRows() / fanOut * fanOut;
        int single = Math.min(rows, ctx.sizes().outboxRowsRawSingle());
        TargetResult.Builder normalBatched = NORMAL_VS_BATCHED.builder();
        TargetResult.Builder fullBatched = FULL_VS_BATCHED.builder();
        TargetResult.Builder fullSingle = FULL_VS_RAW1.builder();
        List<Double> singleNormal = new ArrayList<>();
        List<Double> stagingNormal = new ArrayList<>();
        List<Double> stagingFull = new ArrayList<>();
        List<Double> perClaim = new ArrayList<>();
        List<Double> perCommit = new ArrayList<>();
        List<Double> busy = new ArrayList<>();
        List<Double> ceilingFull = new ArrayList<>();

        ctx.log("P2 warm-up");
        storeDrain(ctx, "NORMAL", Math.max(2_000, rows / 5), fanOut, new CommitCounter(), new double[1]);

        for (int run = 1; run <= ctx.runs(); run++) {
            for (String mode : MODES) {
                ctx.log("P2 run " + run + "/" + ctx.runs() + " synchronous=" + mode);
                CommitCounter commits = new CommitCounter();
                double[] staging = new double[1];
                double store;
                double batched;
                if (run % 2 == 1) {
                    batched = rawDrain(ctx, mode, rows, fanOut, rows, RAW_BATCH);
                    store = storeDrain(ctx, mode, rows, fanOut, commits, staging);
                } else {
                    store = storeDrain(ctx, mode, rows, fanOut, commits, staging);
                    batched = rawDrain(ctx, mode, rows, fanOut, rows, RAW_BATCH);
                }
                double oneByOne = rawDrain(ctx, mode, rows, fanOut, single, 1);
                double writerBusy = commits.writerBusy((long) (rows / store * 1e9));
                ctx.log(String.format("P2   store %.0f rows/s (staged at %.0f rows/s), raw batched %.0f/s, "
                        + "raw 1/txn %.0f/s, %.1f rows per claim, %.1f commands per commit, writer busy %.0f%%",
                        store, staging[0], batched, oneByOne, commits.rowsPerClaim(), commits.commandsPerCommit(),
                        writerBusy * 100));
                if (mode.equals("NORMAL")) {
                    normalBatched.run(store, batched);
                    singleNormal.add(oneByOne);
                    stagingNormal.add(staging[0]);
                    perClaim.add(commits.rowsPerClaim());
                    perCommit.add(commits.commandsPerCommit());
                    busy.add(writerBusy);
                } else {
                    fullBatched.run(store, batched);
                    fullSingle.run(store, oneByOne);
                    ceilingFull.add(batched / oneByOne);
                    stagingFull.add(staging[0]);
                }
            }
        }
        return new Section("P2", "Outbox round trip",
                "Each run stages " + rows + " rows with `appendWithOutbox` (" + fanOut + " rows and one "
                        + "`WorkflowStarted` per workflow, 64 appends in flight; staging is timed separately and "
                        + "shown below), then times the drain: `claimStream(maxBatch 100)` → `flatMap(complete, "
                        + CONCURRENCY + ")` until every row is done. The raw baselines stage the same rows with "
                        + "plain JDBC (untimed) and drain them on one thread with the store's SQL: batched (one "
                        + "`UPDATE … RETURNING` claim of " + RAW_BATCH + " per transaction, then one transaction "
                        + "completing those " + RAW_BATCH + "), and one row per transaction (`SELECT` the oldest due "
                        + "row then `UPDATE` it, commit; complete it, commit; " + single + " rows of the staged "
                        + rows + ", the original design). Both decode each claimed row's input. Both use the "
                        + "store's schema; the batched loop also its checkpoint threshold, the one-row loop "
                        + "SQLite's default.")
                .target(normalBatched.build())
                .target(fullBatched.build())
                .target(fullSingle.build())
                .figure("raw JDBC, 1 row per transaction, NORMAL", singleNormal, "rows/s")
                .figure("store: staging with appendWithOutbox, NORMAL", stagingNormal, "rows/s")
                .figure("store: staging with appendWithOutbox, FULL", stagingFull, "rows/s")
                .figure("store: rows per claim during the drain, NORMAL", perClaim, "")
                .figure("store: commands per group commit during the drain, NORMAL", perCommit, "")
                .figure("store: writer busy inside transactions during the drain, NORMAL (share of wall time)", busy, "")
                .figure("ceiling of P2-full-vs-raw1: raw batched ÷ raw 1 row/txn, FULL (what running this SQL in "
                        + "batches of " + RAW_BATCH + " reaches)", ceilingFull, "×");
    }

    private double storeDrain(RunContext ctx, String mode, int rows, int fanOut, CommitCounter commits,
            double[] stagingRate) {
        Path db = ctx.freshDb("p2-store-" + mode);
        List<WorkflowId> workflows = Fixtures.workflows(rows / fanOut);
        Instant now = Instant.now();
        try (SqliteReactiveStore store = Fixtures.openStore(db, mode, commits)) {
            long stageBegan = System.nanoTime();
            Flux.fromIterable(workflows)
                    .flatMap(w -> store.appendWithOutbox(w, List.of(Fixtures.started(w, now)), 0,
                            Fixtures.pendingRows(w, fanOut, now)), 64)
                    .then()
                    .block(Duration.ofMinutes(10));
            stagingRate[0] = Stats.perSecond((long) workflows.size() * fanOut, System.nanoTime() - stageBegan);
            commits.reset();
            long total = (long) workflows.size() * fanOut;
            ClaimStreamOptions options = ClaimStreamOptions.defaults().maxBatch(RAW_BATCH)
                    .pollInterval(Duration.ofMillis(50));
            long began = System.nanoTime();
            store.claimStream(options)
                    .flatMap(row -> store.complete(row.dispatchKey()).thenReturn(Boolean.TRUE), CONCURRENCY)
                    .take(total)
                    .then()
                    .block(Duration.ofMinutes(10));
            return Stats.perSecond(total, System.nanoTime() - began);
        } finally {
            ctx.delete(db);
        }
    }

    private double rawDrain(RunContext ctx, String mode, int rows, int fanOut, int drain, int batch)
            throws SQLException {
        Path db = ctx.freshDb("p2-raw" + batch + "-" + mode);
        try (RawDb rawDb = RawDb.createBaseline(db, mode, batch)) {
            raw.stage(rawDb, Fixtures.workflows(rows / fanOut), fanOut, Instant.now());
            long nanos = batch == 1 ? raw.drainOneByOne(rawDb, drain) : raw.drainBatched(rawDb, drain, batch);
            return Stats.perSecond(drain, nanos);
        } finally {
            ctx.delete(db);
        }
    }
}
