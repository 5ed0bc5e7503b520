package dev.durablestore.bench.workload;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Target.Comparison;
import dev.durablestore.bench.TargetResult;
import dev.durablestore.bench.Workload;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * POL: what the dispatch policies of issue 20 cost on SQLite. P2's drain ({@code claimStream} →
 * {@code complete}, 64 in flight, synchronous {@code NORMAL}) of workflows with 5 activities each,
 * all 5 rows staged at once, run four ways in each run, taking turns going first: no policy and no
 * priorities (the baseline), one row in ten with a priority, serial per workflow, and a cap of 64
 * on the route (the dispatcher's own concurrency, so the cap allows all the parallelism there is).
 */
public final class DispatchPolicyCost implements Workload {

    /** Activities per workflow. */
    static final int ACTIVITIES = 5;

    static final Target PRIORITIES = Target.ratio("POL-priorities-vs-none",
            "drained rows/s, NORMAL: one row in ten prioritized (1-9) vs no priorities",
            "rows/s", "no priorities", Comparison.AT_LEAST, 0.9);
    static final Target SERIAL = Target.ratio("POL-serial-vs-none",
            "drained rows/s, NORMAL, 5-activity workflows staged at once: serial per workflow vs no policy",
            "rows/s", "no policy", Comparison.AT_LEAST, 0.7);
    static final Target CAPPED = Target.ratio("POL-capped-vs-none",
            "drained rows/s, NORMAL: a cap of 64 on the route (= the dispatcher's concurrency) vs no policy",
            "rows/s", "no policy", Comparison.AT_LEAST, 0.7);

    @Override
    public String id() {
        return "POL";
    }

    @Override
    public List<Target> targets() {
        return List.of(PRIORITIES, SERIAL, CAPPED);
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int rows = ctx.sizes().outboxRows() / ACTIVITIES * ACTIVITIES;
        TargetResult.Builder priorities = PRIORITIES.builder();
        TargetResult.Builder serial = SERIAL.builder();
        TargetResult.Builder capped = CAPPED.builder();
        ctx.log("POL warm-up");
        for (Mode mode : Mode.values()) {
            drain(ctx, mode, Math.max(2_000, rows / 5));
        }
        for (int run = 1; run <= ctx.runs(); run++) {
            ctx.log("POL run " + run + "/" + ctx.runs());
            double[] rate = new double[Mode.values().length];
            for (int turn = 0; turn < Mode.values().length; turn++) {
                Mode mode = Mode.values()[(turn + run - 1) % Mode.values().length];
                rate[mode.ordinal()] = drain(ctx, mode, rows);
            }
            double none = rate[Mode.NONE.ordinal()];
            ctx.log(String.format("POL   none %.0f rows/s, priorities %.0f rows/s, serial %.0f rows/s, capped %.0f "
                    + "rows/s", none, rate[Mode.PRIORITIES.ordinal()], rate[Mode.SERIAL.ordinal()],
                    rate[Mode.CAPPED.ordinal()]));
            priorities.run(rate[Mode.PRIORITIES.ordinal()], none);
            serial.run(rate[Mode.SERIAL.ordinal()], none);
            capped.run(rate[Mode.CAPPED.ordinal()], none);
        }
        return new Section("POL", "Dispatch policy cost",
                "Each run stages " + rows + " rows with `appendWithOutbox` (" + ACTIVITIES + " per workflow, all "
                        + "at once, 64 in flight, untimed) on a fresh file (`synchronous=NORMAL`) and times P2's "
                        + "drain (`claimStream(maxBatch 100)` on the default route → `flatMap(complete, 64)`) four "
                        + "ways, taking turns going first: no policy and no priorities; one row in ten staged "
                        + "with a priority from 1 to 9 (the others 0); `serialPerWorkflow(true)`, so each "
                        + "workflow has one row in flight and its next only after the completion (which wakes "
                        + "the stream); and `concurrencyCap(64)`, which equals the dispatcher's concurrency. "
                        + "Serial leaves the drain " + (rows / ACTIVITIES) + " workflows to choose from, far "
                        + "more than 64, so the policy itself allows the parallelism; what it costs is the "
                        + "per-candidate check of the workflow's other rows, and the claim walking past the "
                        + "rows that wait for an earlier one.")
                .target(priorities.build())
                .target(serial.build())
                .target(capped.build());
    }

    private double drain(RunContext ctx, Mode mode, int rows) {
        Path db = ctx.freshDb("pol-" + mode.name().toLowerCase());
        List<WorkflowId> workflows = Fixtures.workflows(rows / ACTIVITIES);
        Instant now = Instant.now();
        try (SqliteReactiveStore store = Fixtures.openStore(db, "NORMAL")) {
            List<List<OutboxRow>> staged = new ArrayList<>(workflows.size());
            int n = 0;
            for (WorkflowId w : workflows) {
                List<OutboxRow> rowsOf = new ArrayList<>(ACTIVITIES);
                for (OutboxRow r : Fixtures.pendingRows(w, ACTIVITIES, now)) {
                    n++;
                    rowsOf.add(mode == Mode.PRIORITIES && n % 10 == 0 ? r.withPriority(1 + n / 10 % 9) : r);
                }
                staged.add(rowsOf);
            }
            Flux.range(0, workflows.size())
                    .flatMap(i -> store.appendWithOutbox(workflows.get(i),
                            List.of(Fixtures.started(workflows.get(i), now)), 0, staged.get(i)), 64)
                    .then()
                    .block(Duration.ofMinutes(10));
            long total = (long) workflows.size() * ACTIVITIES;
            DispatchPolicy policy = switch (mode) {
                case SERIAL -> DispatchPolicy.none().serialPerWorkflow(true);
                case CAPPED -> DispatchPolicy.none().concurrencyCap(OutboxRoundTrip.CONCURRENCY);
                default -> DispatchPolicy.none();
            };
            ClaimStreamOptions options = ClaimStreamOptions.defaults().maxBatch(100)
                    .scope(ClaimScope.of(OutboxRow.DEFAULT_ROUTE, OutboxRow.DEFAULT_ROUTE))
                    .policy(policy)
                    .pollInterval(Duration.ofMillis(50));
            long began = System.nanoTime();
            store.claimStream(options)
                    .flatMap(row -> store.complete(row).thenReturn(Boolean.TRUE), OutboxRoundTrip.CONCURRENCY)
                    .take(total)
                    .then()
                    .block(Duration.ofMinutes(10));
            return Stats.perSecond(total, System.nanoTime() - began);
        } finally {
            ctx.delete(db);
        }
    }

    /** How the drained rows are staged and claimed. */
    private enum Mode {
        /** No priorities, no policy. */
        NONE,
        /** One row in ten with a priority. */
        PRIORITIES,
        /** Serial per workflow. */
        SERIAL,
        /** A cap equal to the dispatcher's concurrency. */
        CAPPED
    }
}
