package dev.durablestore.bench.workload;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
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
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.bench.raw.RawStepLoop;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * P8: workflow steps. Each workflow has a chain of activities; a dispatcher claims their rows
 * through {@code claimStream} and, for each claimed row, commits one {@code commitStep}: the
 * activity's outcome event, then the next activity's {@code ActivityScheduled} with its row or,
 * after the last, {@code WorkflowCompleted}, and the fenced complete of the claimed row; 64 steps
 * in flight, {@code synchronous=FULL}. One activity per workflow (one step each) and a chain of
 * five (a step stages the next activity). Both are compared with a raw-JDBC loop doing the same per
 * claimed batch ({@link RawStepLoop}), and the one-activity steps with the bare drain of P2 (claim
 * and complete, no events) on the same staged rows, measured in the same run.
 */
public final class StepThroughput implements Workload {

    /** Steps in flight. */
    public static final int CONCURRENCY = OutboxRoundTrip.CONCURRENCY;
    /** Activities per workflow in the chained variant. */
    public static final int CHAIN = 5;

    private static final int MAX_BATCH = 100;
    private static final String MODE = "FULL";

    static final Target STEP_VS_RAW = Target.ratio(
            "P8-step-vs-raw",
            "workflow steps/s, FULL, 1 activity per workflow: store (claimStream → commitStep per row, 64 in "
                    + "flight) vs raw JDBC (claim 64; one transaction with every claimed row's inserts and settle)",
            "steps/s",
            "raw, claim 64 + one step transaction",
            Comparison.AT_LEAST,
            0.8);
    static final Target CHAIN_VS_RAW = Target.ratio(
            "P8-fanout5-vs-raw",
            "workflow steps/s, FULL, 5-activity fan-out (each step stages the next activity, the 5th completes "
                    + "the workflow): store vs the same raw JDBC loop",
            "steps/s",
            "raw, claim 64 + one step transaction",
            Comparison.AT_LEAST,
            0.8);

    private final RawStepLoop raw = new RawStepLoop(new RawRows(EventCodec.create()));

    @Override
    public String id() {
        return "P8";
    }

    @Override
    public List<Target> targets() {
        return List.of(STEP_VS_RAW, CHAIN_VS_RAW);
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int single = ctx.sizes().stepWorkflows();
        int chained = ctx.sizes().stepChainWorkflows();
        TargetResult.Builder stepResult = STEP_VS_RAW.builder();
        TargetResult.Builder chainResult = CHAIN_VS_RAW.builder();
        List<Double> bare = new ArrayList<>();
        List<Double> storeSingle = new ArrayList<>();
        List<Double> stepsPerClaim = new ArrayList<>();
        List<Double> stepsPerCommit = new ArrayList<>();
        List<Double> busy = new ArrayList<>();
        List<Double> chainPerCommit = new ArrayList<>();
        List<Double> stepsPerTransaction = new ArrayList<>();
        List<Double> txnMicros = new ArrayList<>();

        ctx.log("P8 warm-up");
        storeSteps(ctx, Math.max(2_000, single / 5), 1, new CommitCounter());
        storeSteps(ctx, Math.max(400, chained / 5), CHAIN, new CommitCounter());
        rawSteps(ctx, Math.max(2_000, single / 5), 1);
        bareDrain(ctx, Math.max(2_000, single / 5));

        for (int run = 1; run <= ctx.runs(); run++) {
            ctx.log("P8 run " + run + "/" + ctx.runs() + " synchronous=" + MODE);
            boolean storeFirst = run % 2 == 1; // store and raw take turns going first
            CommitCounter commits = new CommitCounter();
            double store1;
            double raw1;
            if (storeFirst) {
                store1 = storeSteps(ctx, single, 1, commits);
                raw1 = rawSteps(ctx, single, 1);
            } else {
                raw1 = rawSteps(ctx, single, 1);
                store1 = storeSteps(ctx, single, 1, commits);
            }
            double writerBusy = commits.writerBusy((long) (single / store1 * 1e9));
            double perClaim = commits.rowsPerClaim();
            double perCommit = commits.commandsPerCommit();
            stepsPerTransaction.add((double) single / commits.batches());
            txnMicros.add(commits.microsPerTransaction());
            CommitCounter chainCommits = new CommitCounter();
            double store5;
            double raw5;
            if (storeFirst) {
                store5 = storeSteps(ctx, chained, CHAIN, chainCommits);
                raw5 = rawSteps(ctx, chained, CHAIN);
            } else {
                raw5 = rawSteps(ctx, chained, CHAIN);
                store5 = storeSteps(ctx, chained, CHAIN, chainCommits);
            }
            double drained = bareDrain(ctx, single);
            ctx.log(String.format(
                    "P8   1 activity: store %.0f steps/s, raw %.0f/s (%.2f×), bare drain %.0f rows/s; "
                            + "%.1f rows per claim, %.1f commands per commit, writer busy %.0f%%; "
                            + "5 activities: store %.0f steps/s, raw %.0f/s (%.2f×), %.1f commands per commit",
                    store1,
                    raw1,
                    store1 / raw1,
                    drained,
                    perClaim,
                    perCommit,
                    writerBusy * 100,
                    store5,
                    raw5,
                    store5 / raw5,
                    chainCommits.commandsPerCommit()));
            stepResult.run(store1, raw1);
            chainResult.run(store5, raw5);
            storeSingle.add(store1);
            bare.add(drained);
            stepsPerClaim.add(perClaim);
            stepsPerCommit.add(perCommit);
            busy.add(writerBusy);
            chainPerCommit.add(chainCommits.commandsPerCommit());
        }
        return new Section(
                        "P8",
                        "Workflow steps",
                        "Each run stages, untimed, " + single + " workflows with `appendWithOutbox` (64 in flight): "
                                + "`WorkflowStarted` and the first `ActivityScheduled` (seq 1, 2) and the first activity's "
                                + "row; then times a dispatcher: `claimStream(maxBatch " + MAX_BATCH + ")` → `flatMap("
                                + "commitStep, " + CONCURRENCY
                                + ")` until every step committed, `synchronous=FULL`. The "
                                + "step of a claimed row (activity k, the workflow's head 2k, known from the row's "
                                + "ordinal) appends the activity's `ActivityCompleted` and then `WorkflowCompleted` — or, "
                                + "in the chained variant (" + chained + " workflows of " + CHAIN + " activities, "
                                + chained * CHAIN + " steps), the next activity's `ActivityScheduled` with its row, "
                                + "staged in the same step, until the " + CHAIN
                                + "th step completes the workflow — and "
                                + "completes the claimed row fenced by its claim (`WorkflowStep.complete(row)`). The "
                                + "figure is steps per second. The raw baseline stages the same rows with plain JDBC "
                                + "(untimed) and runs, on one thread, the same SQL per claimed batch with no store: one "
                                + "transaction claiming " + CONCURRENCY + " rows (the store's claim statement with its "
                                + "claim token), then one transaction with every claimed row's event inserts, next row "
                                + "and fenced settle (`… AND status = 'claimed' AND claim_token = ?`, which must change "
                                + "one row), encoding each event and decoding each claimed row with the same codec. "
                                + "Store and raw take turns going first. Each run then times the bare drain of P2 "
                                + "(`claimStream(maxBatch " + MAX_BATCH + ")` → `flatMap(complete, " + CONCURRENCY
                                + ")`, "
                                + "no events) on " + single + " rows staged the same way, FULL: what the steps add to "
                                + "claiming and completing.")
                .target(stepResult.build())
                .target(chainResult.build())
                .sideBySide(
                        "FULL, 1 activity per workflow: store steps (claimStream → commitStep) vs the bare drain "
                                + "(claimStream → complete, P2)",
                        "rows/s",
                        "store steps",
                        storeSingle,
                        "bare drain",
                        bare)
                .figure("store: rows per claim during the steps, 1 activity", stepsPerClaim, "")
                .figure(
                        "store: commands per group commit during the steps, 1 activity (claims and steps)",
                        stepsPerCommit,
                        "")
                .figure(
                        "store: steps per transaction, 1 activity (steps ÷ group commits, claims included; the raw "
                                + "loop: " + CONCURRENCY / 2 + ", " + CONCURRENCY
                                + " steps per claim and step transaction)",
                        stepsPerTransaction,
                        "")
                .figure("store: mean BEGIN…COMMIT time per group commit during the steps, 1 activity", txnMicros, "µs")
                .figure(
                        "store: writer busy inside transactions during the steps, 1 activity (share of wall time)",
                        busy,
                        "")
                .figure(
                        "store: commands per group commit during the steps, " + CHAIN + " activities",
                        chainPerCommit,
                        "");
    }

    /**
     * Stages {@code workflows} workflows, then times {@code workflows × activities} steps.
     *
     * @return steps per second
     */
    private double storeSteps(RunContext ctx, int workflows, int activities, CommitCounter commits) {
        Path db = ctx.freshDb("p8-store-" + activities);
        try (SqliteReactiveStore store = Fixtures.openStore(db, MODE, commits)) {
            stage(store, Fixtures.workflows(workflows));
            commits.reset();
            long steps = (long) workflows * activities;
            long began = System.nanoTime();
            store.claimStream(options())
                    .flatMap(row -> store.commitStep(step(row, activities)).thenReturn(Boolean.TRUE), CONCURRENCY)
                    .take(steps)
                    .then()
                    .block(Duration.ofMinutes(10));
            return Stats.perSecond(steps, System.nanoTime() - began);
        } finally {
            ctx.delete(db);
        }
    }

    /** @return the bare drain's rows per second on {@code workflows} rows staged as for the steps */
    private double bareDrain(RunContext ctx, int workflows) {
        Path db = ctx.freshDb("p8-bare");
        try (SqliteReactiveStore store = Fixtures.openStore(db, MODE)) {
            stage(store, Fixtures.workflows(workflows));
            long began = System.nanoTime();
            store.claimStream(options())
                    .flatMap(
                            row -> store.settleKeys(List.of(row.dispatchKey()), Settlement.complete())
                                    .thenReturn(Boolean.TRUE),
                            CONCURRENCY)
                    .take(workflows)
                    .then()
                    .block(Duration.ofMinutes(10));
            return Stats.perSecond(workflows, System.nanoTime() - began);
        } finally {
            ctx.delete(db);
        }
    }

    private double rawSteps(RunContext ctx, int workflows, int activities) throws SQLException {
        Path db = ctx.freshDb("p8-raw-" + activities);
        try (RawDb rawDb = RawDb.create(db, MODE)) {
            raw.stage(rawDb, Fixtures.workflows(workflows), Instant.now());
            int steps = workflows * activities;
            return Stats.perSecond(steps, raw.drain(rawDb, steps, activities, CONCURRENCY));
        } finally {
            ctx.delete(db);
        }
    }

    private static void stage(SqliteReactiveStore store, List<WorkflowId> workflows) {
        Instant now = Instant.now();
        Flux.fromIterable(workflows)
                .flatMap(
                        w -> store.appendWithOutbox(
                                w,
                                List.of(Fixtures.started(w, now), Fixtures.activityScheduled(w, 2, 1, now)),
                                0,
                                List.of(Fixtures.pendingRow(w, 1, now))),
                        64)
                .then()
                .block(Duration.ofMinutes(10));
    }

    private static ClaimStreamOptions options() {
        return ClaimStreamOptions.defaults().withMaxBatch(MAX_BATCH).withPollInterval(Duration.ofMillis(50));
    }

    /**
     * @param row a claimed row of activity {@code row.ordinal()}
     * @param activities activities per workflow
     * @return its step: the outcome, the next activity (with its row) or the workflow's completion,
     *     and the fenced complete of the row
     */
    private static WorkflowStep step(OutboxRow row, int activities) {
        Instant now = Instant.now();
        long activity = row.ordinal();
        WorkflowStep.Builder b = WorkflowStep.builder(row.workflowId(), 2 * activity)
                .append(RawStepLoop.stepEvents(row.workflowId(), activity, activities, now))
                .complete(row);
        if (activity < activities) {
            b.stage(Fixtures.pendingRow(row.workflowId(), activity + 1, now));
        }
        return b.build();
    }
}
