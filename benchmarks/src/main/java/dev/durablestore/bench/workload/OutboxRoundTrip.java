package dev.durablestore.bench.workload;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.Settlement;
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
import dev.durablestore.bench.raw.RawDb;
import dev.durablestore.bench.raw.RawOutboxLoop;
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;

/**
 * P2: the outbox drain. Rows are staged with {@code appendWithOutbox} (fan-out per workflow), then
 * drained — claimed through {@code claimStream} and completed one by one at dispatcher concurrency
 * 64 — and the drain's rows per second are compared with raw-JDBC drains of the same rows: batched
 * ({@code UPDATE … RETURNING} claims of 100, completes of 100 per transaction), in the store's own
 * transaction shape at that concurrency (claims of 64, then their completes grouped in one
 * statement: what the store's SQL costs without the store), and one row per transaction (SELECT
 * then UPDATE, then a transaction for the complete).
 */
public final class OutboxRoundTrip implements Workload {

    /** Rows the dispatcher works on at once. */
    public static final int CONCURRENCY = 64;

    private static final int RAW_BATCH = 100;
    private static final List<String> MODES = List.of("NORMAL", "FULL");

    static final Target NORMAL_VS_BATCHED = Target.ratio(
            "P2-normal-vs-batched",
            "drained rows/s, NORMAL: store (claimStream + complete, concurrency 64) vs raw JDBC batched by 100",
            "rows/s",
            "raw, batches of 100",
            Comparison.AT_LEAST,
            0.7);
    static final Target FULL_VS_BATCHED = Target.ratio(
            "P2-full-vs-batched",
            "drained rows/s, FULL: store (claimStream + complete, concurrency 64) vs raw JDBC batched by 100",
            "rows/s",
            "raw, batches of 100",
            Comparison.AT_LEAST,
            0.7);
    static final Target FULL_VS_RAW1 = Target.ratio(
            "P2-full-vs-raw1",
            "drained rows/s, FULL: store vs raw JDBC one row per transaction (SELECT+UPDATE claim, then complete)",
            "rows/s",
            "raw, 1 row/txn",
            Comparison.AT_LEAST,
            10.0);

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
        return measure(ctx, rows, fanOut, single);
    }

    private Section measure(RunContext ctx, int rows, int fanOut, int single) throws Exception {
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
        List<Double> shapeNormal = new ArrayList<>();
        List<Double> shapeFull = new ArrayList<>();
        List<Double> inShapeNormal = new ArrayList<>();
        List<Double> inShapeFull = new ArrayList<>();

        ctx.log("P2 warm-up");
        storeDrain(ctx, "NORMAL", Math.max(2_000, rows / 5), fanOut, new CommitCounter(), new double[1]);

        for (int run = 1; run <= ctx.runs(); run++) {
            for (String mode : MODES) {
                ctx.log("P2 run " + run + "/" + ctx.runs() + " synchronous=" + mode);
                CommitCounter commits = new CommitCounter();
                double[] staging = new double[1];
                // the drains take turns going first, so a drift of the machine does not favour one
                Map<Contender, Double> measured = new EnumMap<>(Contender.class);
                Contender[] contenders = Contender.values();
                for (int turn = 0; turn < contenders.length; turn++) {
                    Contender next = contenders[(turn + run - 1) % contenders.length];
                    measured.put(
                            next,
                            switch (next) {
                                case BATCHED ->
                                    rawDrain(
                                            ctx,
                                            mode,
                                            rows,
                                            fanOut,
                                            rows,
                                            RAW_BATCH,
                                            db -> raw.drainBatched(db, rows, RAW_BATCH));
                                case STORE -> storeDrain(ctx, mode, rows, fanOut, commits, staging);
                                case STORE_SHAPE ->
                                    rawDrain(
                                            ctx,
                                            mode,
                                            rows,
                                            fanOut,
                                            rows,
                                            RAW_BATCH,
                                            db -> raw.drainInStoreShape(db, rows, CONCURRENCY));
                            });
                }
                double batched = measured.get(Contender.BATCHED);
                double store = measured.get(Contender.STORE);
                double shaped = measured.get(Contender.STORE_SHAPE);
                double oneByOne = rawDrain(ctx, mode, rows, fanOut, single, 1, db -> raw.drainOneByOne(db, single));
                double writerBusy = commits.writerBusy((long) (rows / store * 1e9));
                ctx.log(String.format(
                        "P2   store %.0f rows/s (staged at %.0f rows/s), raw batched %.0f/s, "
                                + "raw in the store's shape %.0f/s, "
                                + "raw 1/txn %.0f/s, %.1f rows per claim, %.1f commands per commit, writer busy %.0f%%",
                        store,
                        staging[0],
                        batched,
                        shaped,
                        oneByOne,
                        commits.rowsPerClaim(),
                        commits.commandsPerCommit(),
                        writerBusy * 100));
                if (mode.equals("NORMAL")) {
                    normalBatched.run(store, batched);
                    singleNormal.add(oneByOne);
                    stagingNormal.add(staging[0]);
                    perClaim.add(commits.rowsPerClaim());
                    perCommit.add(commits.commandsPerCommit());
                    busy.add(writerBusy);
                    shapeNormal.add(shaped / batched);
                    inShapeNormal.add(store / shaped);
                } else {
                    shapeFull.add(shaped / batched);
                    inShapeFull.add(store / shaped);
                    fullBatched.run(store, batched);
                    fullSingle.run(store, oneByOne);
                    ceilingFull.add(batched / oneByOne);
                    stagingFull.add(staging[0]);
                }
            }
        }
        return new Section(
                        "P2",
                        "Outbox round trip",
                        "Each run stages " + rows + " rows with `appendWithOutbox` (" + fanOut + " rows and one "
                                + "`WorkflowStarted` per workflow, 64 appends in flight; staging is timed separately and "
                                + "shown below), then times the drain: `claimStream(maxBatch 100)` → `flatMap(complete, "
                                + CONCURRENCY
                                + ")` until every row is done. The raw baselines stage the same rows with "
                                + "plain JDBC (untimed) and drain them on one thread with the store's SQL: batched (one "
                                + "`UPDATE … RETURNING` claim of " + RAW_BATCH
                                + " per transaction, then one transaction "
                                + "completing those " + RAW_BATCH
                                + "), and one row per transaction (`SELECT` the oldest due "
                                + "row then `UPDATE` it, commit; complete it, commit; " + single
                                + " rows of the staged "
                                + rows + ", the original design). Both decode each claimed row's input. Both use the "
                                + "store's schema; the batched loop also its writer settings (checkpoint threshold, page "
                                + "cache), the one-row loop SQLite's defaults. A third raw drain runs the store's own "
                                + "transaction shape: a claim "
                                + "stream never claims ahead of demand (O52), and with " + CONCURRENCY
                                + " rows in flight "
                                + "and each commit's subscribers signalled by the writer before its next transaction, the "
                                + "store alternates a claim of " + CONCURRENCY
                                + " and a transaction completing them (one "
                                + "grouped `UPDATE`): " + CONCURRENCY
                                + " row transitions per commit against 100 in the "
                                + "batched loop (see the rows per claim and commands per commit below). The loop in that "
                                + "shape is what this SQL reaches with no store around it. The three drains of a run take "
                                + "turns going first.")
                .target(normalBatched.build())
                .target(fullBatched.build())
                .target(fullSingle.build())
                .figure("raw JDBC, 1 row per transaction, NORMAL", singleNormal, "rows/s")
                .figure("store: staging with appendWithOutbox, NORMAL", stagingNormal, "rows/s")
                .figure("store: staging with appendWithOutbox, FULL", stagingFull, "rows/s")
                .figure("store: rows per claim during the drain, NORMAL", perClaim, "")
                .figure("store: commands per group commit during the drain, NORMAL", perCommit, "")
                .figure(
                        "store: writer busy inside transactions during the drain, NORMAL (share of wall time)",
                        busy,
                        "")
                .figure(
                        "raw in the store's shape (claims of " + CONCURRENCY + ", their completes grouped in the "
                                + "next transaction) ÷ raw batches of " + RAW_BATCH + ", NORMAL",
                        shapeNormal,
                        "×")
                .figure("raw in the store's shape ÷ raw batches of " + RAW_BATCH + ", FULL", shapeFull, "×")
                .figure("store ÷ raw in the store's shape, NORMAL (what the store itself costs)", inShapeNormal, "×")
                .figure("store ÷ raw in the store's shape, FULL (what the store itself costs)", inShapeFull, "×")
                .figure(
                        "ceiling of P2-full-vs-raw1: raw batched ÷ raw 1 row/txn, FULL (what running this SQL in "
                                + "batches of " + RAW_BATCH + " reaches)",
                        ceilingFull,
                        "×");
    }

    private double storeDrain(
            RunContext ctx, String mode, int rows, int fanOut, CommitCounter commits, double[] stagingRate) {
        Path db = ctx.freshDb("p2-store-" + mode);
        List<WorkflowId> workflows = Fixtures.workflows(rows / fanOut);
        Instant now = Instant.now();
        try (SqliteReactiveStore store = Fixtures.openStore(db, mode, commits)) {
            long stageBegan = System.nanoTime();
            Flux.fromIterable(workflows)
                    .flatMap(
                            w -> store.appendWithOutbox(
                                    w, List.of(Fixtures.started(w, now)), 0, Fixtures.pendingRows(w, fanOut, now)),
                            64)
                    .then()
                    .block(Duration.ofMinutes(10));
            stagingRate[0] = Stats.perSecond((long) workflows.size() * fanOut, System.nanoTime() - stageBegan);
            commits.reset();
            long total = (long) workflows.size() * fanOut;
            ClaimStreamOptions options =
                    ClaimStreamOptions.defaults().withMaxBatch(RAW_BATCH).withPollInterval(Duration.ofMillis(50));
            long began = System.nanoTime();
            store.claimStream(options)
                    .flatMap(
                            row -> store.settleKeys(List.of(row.dispatchKey()), Settlement.complete())
                                    .thenReturn(Boolean.TRUE),
                            CONCURRENCY)
                    .take(total)
                    .then()
                    .block(Duration.ofMinutes(10));
            return Stats.perSecond(total, System.nanoTime() - began);
        } finally {
            ctx.delete(db);
        }
    }

    private double rawDrain(RunContext ctx, String mode, int rows, int fanOut, int drain, int batch, Drain how)
            throws SQLException {
        Path db = ctx.freshDb("p2-raw" + batch + "-" + mode);
        try (RawDb rawDb = RawDb.createBaseline(db, mode, batch)) {
            raw.stage(rawDb, Fixtures.workflows(rows / fanOut), fanOut, Instant.now());
            return Stats.perSecond(drain, how.drain(rawDb));
        } finally {
            ctx.delete(db);
        }
    }

    /** The drains each run times against each other, taking turns going first. */
    private enum Contender {
        /** Raw JDBC, claims and completes in batches of 100: the targets' baseline. */
        BATCHED,
        /** The store: {@code claimStream} and {@code complete}, 64 in flight. */
        STORE,
        /** Raw JDBC in the store's transaction shape. */
        STORE_SHAPE
    }

    /** One raw drain of staged rows. */
    @FunctionalInterface
    private interface Drain {
        /**
         * @param db the staged file
         * @return elapsed nanoseconds
         * @throws SQLException on failure
         */
        long drain(RawDb db) throws SQLException;
    }
}
