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
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * POL: what the dispatch policies of issue 20 cost on SQLite. P2's drain ({@code claimStream} →
 * {@code complete}, 64 in flight, synchronous {@code NORMAL}) of workflows with 5 activities each,
 * all 5 rows staged at once, run in several ways in each run, taking turns going first: no policy and
 * no priorities (the baseline), one row in ten with a priority, serial per workflow, a cap of 64 on
 * the route (the dispatcher's own concurrency, so the cap allows all the parallelism there is), a cap
 * of 32 (against the same drain with 32 in flight and no cap), and serial per workflow on 64 workflows
 * of 50 rows (against the same rows unconstrained), where the policy does not leave the parallelism.
 * Then the latency of one claim of 64 with each policy on vs off ({@link PolicyClaimLatency}).
 */
public final class DispatchPolicyCost implements Workload {

    /** Activities per workflow. */
    static final int ACTIVITIES = 5;
    /** The cap of the capped drain that binds: half the dispatcher's concurrency. */
    static final int HALF_CAP = OutboxRoundTrip.CONCURRENCY / 2;
    /** Workflows of the serial drain the policy holds back (one row in flight each at most). */
    static final int FEW_WORKFLOWS = 64;
    /** Rows per workflow of that drain. */
    static final int FEW_ROWS = 50;

    static final Target PRIORITIES = Target.ratio(
            "POL-priorities-vs-none",
            "drained rows/s, NORMAL: one row in ten prioritized (1-9) vs no priorities",
            "rows/s",
            "no priorities",
            Comparison.AT_LEAST,
            0.9);
    static final Target SERIAL = Target.ratio(
            "POL-serial-vs-none",
            "drained rows/s, NORMAL, 5-activity workflows staged at once: serial per workflow vs no policy",
            "rows/s",
            "no policy",
            Comparison.AT_LEAST,
            0.7);
    static final Target CAPPED = Target.ratio(
            "POL-capped-vs-none",
            "drained rows/s, NORMAL: a cap of 64 on the route (= the dispatcher's concurrency) vs no policy",
            "rows/s",
            "no policy",
            Comparison.AT_LEAST,
            0.7);
    static final Target CAPPED_HALF = Target.ratio(
            "POL-cap32-vs-32-in-flight",
            "drained rows/s, NORMAL: a cap of 32 with 64 in flight vs no cap with 32 in flight",
            "rows/s",
            "no cap, 32 in flight",
            Comparison.AT_LEAST,
            0.7);

    private final RawOutboxLoop raw = new RawOutboxLoop(new RawRows(EventCodec.create()));

    @Override
    public String id() {
        return "POL";
    }

    @Override
    public List<Target> targets() {
        return List.of(PRIORITIES, SERIAL, CAPPED, CAPPED_HALF);
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        // half of P2's rows (10,000 workflows at full sizes), so that the eight drains of three runs
        // and the claim latencies take about three minutes
        int rows = ctx.sizes().outboxRows() / 2 / ACTIVITIES * ACTIVITIES;
        int pending = rows;
        int claims = Math.min(500, ctx.sizes().claims());
        TargetResult.Builder priorities = PRIORITIES.builder();
        TargetResult.Builder serial = SERIAL.builder();
        TargetResult.Builder capped = CAPPED.builder();
        TargetResult.Builder cappedHalf = CAPPED_HALF.builder();
        Mode[] modes = Mode.values();
        List<List<Double>> rates = new ArrayList<>();
        List<List<Double>> p50 = new ArrayList<>();
        List<List<Double>> p99 = new ArrayList<>();
        for (Mode mode : modes) {
            rates.add(new ArrayList<>());
        }
        // the ceiling of POL-serial-vs-none: the store's own claim SQL, serial and not, by raw JDBC
        List<Double> rawNone = new ArrayList<>();
        List<Double> rawSerial = new ArrayList<>();
        for (PolicyClaimLatency.Kind kind : PolicyClaimLatency.Kind.values()) {
            p50.add(new ArrayList<>());
            p99.add(new ArrayList<>());
        }
        ctx.log("POL warm-up");
        for (Mode mode : modes) {
            drain(ctx, mode, Math.max(2_000, rows / 5));
        }
        rawDrain(ctx, Math.max(2_000, rows / 5), false);
        rawDrain(ctx, Math.max(2_000, rows / 5), true);
        PolicyClaimLatency.measure(ctx, Math.max(2_000, pending / 5), Math.max(20, claims / 5));
        for (int run = 1; run <= ctx.runs(); run++) {
            ctx.log("POL run " + run + "/" + ctx.runs());
            double[] rate = new double[modes.length];
            for (int turn = 0; turn < modes.length; turn++) {
                Mode mode = modes[(turn + run - 1) % modes.length];
                rate[mode.ordinal()] = drain(ctx, mode, rows);
                rates.get(mode.ordinal()).add(rate[mode.ordinal()]);
            }
            StringBuilder line = new StringBuilder("POL  ");
            for (Mode mode : modes) {
                line.append(String.format(" %s %.0f", mode.name().toLowerCase(), rate[mode.ordinal()]));
            }
            boolean serialFirst = run % 2 == 0;
            double rawFirst = rawDrain(ctx, rows, serialFirst);
            double rawSecond = rawDrain(ctx, rows, !serialFirst);
            rawSerial.add(serialFirst ? rawFirst : rawSecond);
            rawNone.add(serialFirst ? rawSecond : rawFirst);
            line.append(String.format(
                    " rows/s; raw in the store's shape: serial %.0f, none %.0f",
                    rawSerial.get(rawSerial.size() - 1), rawNone.get(rawNone.size() - 1)));
            ctx.log(line.append(" rows/s").toString());
            double none = rate[Mode.NONE.ordinal()];
            priorities.run(rate[Mode.PRIORITIES.ordinal()], none);
            serial.run(rate[Mode.SERIAL.ordinal()], none);
            capped.run(rate[Mode.CAPPED.ordinal()], none);
            cappedHalf.run(rate[Mode.CAPPED_HALF.ordinal()], rate[Mode.NONE_HALF.ordinal()]);
            PolicyClaimLatency.Run latency = PolicyClaimLatency.measure(ctx, pending, claims);
            StringBuilder lat = new StringBuilder("POL   claim(" + PolicyClaimLatency.LIMIT + ") p50/p99 ms:");
            for (PolicyClaimLatency.Kind kind : PolicyClaimLatency.Kind.values()) {
                p50.get(kind.ordinal()).add(latency.p50()[kind.ordinal()]);
                p99.get(kind.ordinal()).add(latency.p99()[kind.ordinal()]);
                lat.append(String.format(
                        " %s %.3f/%.3f",
                        kind.name().toLowerCase(), latency.p50()[kind.ordinal()], latency.p99()[kind.ordinal()]));
            }
            ctx.log(lat.toString());
        }
        Section section = new Section("POL", "Dispatch policy cost", method(rows, pending, claims))
                .target(priorities.build())
                .target(serial.build())
                .target(capped.build())
                .target(cappedHalf.build())
                .sideBySide(
                        "drained rows/s, raw JDBC in the store's transaction shape (claim "
                                + OutboxRoundTrip.CONCURRENCY + ", then complete them in one statement): the "
                                + "store's serial claim vs its plain claim (the ceiling of POL-serial-vs-none)",
                        "rows/s",
                        "raw serial",
                        rawSerial,
                        "raw, no policy",
                        rawNone)
                .sideBySide(
                        "drained rows/s, serial per workflow: the store vs raw JDBC in the store's shape",
                        "rows/s",
                        "store, serial",
                        rates.get(Mode.SERIAL.ordinal()),
                        "raw serial",
                        rawSerial)
                .sideBySide(
                        "drained rows/s: a cap of " + HALF_CAP + " with 64 in flight vs no policy (64 in flight)",
                        "rows/s",
                        "cap " + HALF_CAP,
                        rates.get(Mode.CAPPED_HALF.ordinal()),
                        "no policy",
                        rates.get(Mode.NONE.ordinal()))
                .sideBySide(
                        "drained rows/s, " + FEW_WORKFLOWS + " workflows × " + FEW_ROWS + " rows staged at once: "
                                + "serial per workflow vs no policy",
                        "rows/s",
                        "serial",
                        rates.get(Mode.SERIAL_FEW.ordinal()),
                        "no policy",
                        rates.get(Mode.NONE_FEW.ordinal()));
        List<Double> p50None = p50.get(PolicyClaimLatency.Kind.NONE.ordinal());
        List<Double> p99None = p99.get(PolicyClaimLatency.Kind.NONE.ordinal());
        for (PolicyClaimLatency.Kind kind : PolicyClaimLatency.Kind.values()) {
            if (kind == PolicyClaimLatency.Kind.NONE) {
                continue;
            }
            String what = switch (kind) {
                case PRIORITIES -> "one row in ten prioritized";
                case SERIAL -> "serial per workflow";
                case CAPPED -> "cap " + PolicyClaimLatency.LIMIT;
                default -> throw new IllegalStateException(kind.name());
            };
            section.sideBySide(
                    "claim(" + PolicyClaimLatency.LIMIT + ") latency p50, " + pending + " pending rows: " + what
                            + " vs none",
                    "ms",
                    what,
                    p50.get(kind.ordinal()),
                    "none",
                    p50None);
            section.sideBySide(
                    "claim(" + PolicyClaimLatency.LIMIT + ") latency p99, " + pending + " pending rows: " + what
                            + " vs none",
                    "ms",
                    what,
                    p99.get(kind.ordinal()),
                    "none",
                    p99None);
        }
        return section;
    }

    private static String method(int rows, int pending, int claims) {
        return "Each run stages " + rows + " rows with `appendWithOutbox` (" + ACTIVITIES + " per workflow, all "
                + "at once, 64 in flight, untimed) on a fresh file (`synchronous=NORMAL`) and times P2's "
                + "drain (`claimStream(maxBatch 100)` on the default route → `flatMap(complete, 64)`) in "
                + "turns, a different one going first each run: no policy and no priorities; one row in ten "
                + "staged with a priority from 1 to 9 (the others 0); `withSerialPerWorkflow(true)`, so each "
                + "workflow has one row in flight and its next only after the completion (which wakes the "
                + "stream); `withConcurrencyCap(64)`, which equals the dispatcher's concurrency; "
                + "`withConcurrencyCap(" + HALF_CAP + ")` with 64 in flight, judged against the same drain with "
                + HALF_CAP + " in flight and no cap (the parallelism the cap leaves), so the ratio is what "
                + "the cap itself costs; and, on " + FEW_WORKFLOWS + " workflows of " + FEW_ROWS + " rows "
                + "(" + FEW_WORKFLOWS * FEW_ROWS + " rows), serial vs no policy. Serial leaves the main drain "
                + (rows / ACTIVITIES) + " workflows to choose from, far more than 64, so the policy itself "
                + "allows the parallelism; what it costs is the per-candidate check of the workflow's other "
                + "rows, the claim walking past the rows that wait for an earlier one, and above all the "
                + "pages: a plain claim takes neighbouring rows (a workflow's rows are staged together), a "
                + "serial claim one row of each of many workflows, so each claim and settle dirties and "
                + "commits several times as many table and index pages. The ceiling: each run also drains "
                + "the same rows by raw JDBC in the store's transaction shape (one thread; claim "
                + OutboxRoundTrip.CONCURRENCY + " with the store's claim statement, then complete them "
                + "with its grouped complete; fresh file, `synchronous=NORMAL`), with the store's serial "
                + "claim and with its plain claim, in turns. On " + FEW_WORKFLOWS
                + " workflows it does not: each completion makes one row claimable, so claims take about one "
                + "row each, past the rows waiting behind the 64 in flight (a context figure, no target). "
                + "Claim latency: four files kept at " + pending + " pending rows (5 per workflow; after each "
                + "claim its rows are completed and as many staged again, untimed), " + claims + " timed "
                + "`claim(ClaimRequest.of(" + PolicyClaimLatency.LIMIT + ").withScope(scope).withPolicy(policy))` "
                + "per file after a tenth as "
                + "many untimed, the files taking turns claim by claim: no policy; one row in ten prioritized; "
                + "serial per workflow; a cap of " + PolicyClaimLatency.LIMIT + " (never reached).";
    }

    /**
     * @param row a staged row
     * @param n its number among the rows staged, from 1
     * @return every tenth row with a priority from 1 to 9, the others as they are (priority 0)
     */
    static OutboxRow prioritized(OutboxRow row, int n) {
        return n % 10 == 0 ? row.withPriority(1 + n / 10 % 9) : row;
    }

    /**
     * The store's claim SQL with and without the serial predicate, by raw JDBC on one thread in the
     * store's transaction shape ({@link RawOutboxLoop#drainInStoreShape}), on a fresh file staged
     * like the store's ({@value #ACTIVITIES} rows per workflow, all due at once).
     */
    private double rawDrain(RunContext ctx, int rows, boolean serial) throws SQLException {
        Path db = ctx.freshDb(serial ? "pol-raw-serial" : "pol-raw-none");
        try (RawDb rawDb = RawDb.createBaseline(db, "NORMAL", OutboxRoundTrip.CONCURRENCY)) {
            raw.stage(rawDb, Fixtures.workflows(rows / ACTIVITIES), ACTIVITIES, Instant.now());
            long nanos = serial
                    ? raw.drainSeriallyInStoreShape(rawDb, rows, OutboxRoundTrip.CONCURRENCY)
                    : raw.drainInStoreShape(rawDb, rows, OutboxRoundTrip.CONCURRENCY);
            return Stats.perSecond(rows, nanos);
        } finally {
            ctx.delete(db);
        }
    }

    private double drain(RunContext ctx, Mode mode, int rows) {
        Path db = ctx.freshDb("pol-" + mode.name().toLowerCase());
        List<WorkflowId> workflows = Fixtures.workflows(mode.workflows(rows));
        int perWorkflow = mode.rowsPerWorkflow();
        Instant now = Instant.now();
        try (SqliteReactiveStore store = Fixtures.openStore(db, "NORMAL")) {
            List<List<OutboxRow>> staged = new ArrayList<>(workflows.size());
            int n = 0;
            for (WorkflowId w : workflows) {
                List<OutboxRow> rowsOf = new ArrayList<>(perWorkflow);
                for (OutboxRow r : Fixtures.pendingRows(w, perWorkflow, now)) {
                    n++;
                    rowsOf.add(mode == Mode.PRIORITIES ? prioritized(r, n) : r);
                }
                staged.add(rowsOf);
            }
            Flux.range(0, workflows.size())
                    .flatMap(
                            i -> store.appendWithOutbox(
                                    workflows.get(i),
                                    List.of(Fixtures.started(workflows.get(i), now)),
                                    0,
                                    staged.get(i)),
                            64)
                    .then()
                    .block(Duration.ofMinutes(10));
            long total = (long) workflows.size() * perWorkflow;
            ClaimStreamOptions options = ClaimStreamOptions.defaults()
                    .withMaxBatch(100)
                    .withScope(ClaimScope.of(OutboxRow.DEFAULT_ROUTE, OutboxRow.DEFAULT_ROUTE))
                    .withPolicy(mode.policy())
                    .withPollInterval(Duration.ofMillis(50));
            long began = System.nanoTime();
            store.claimStream(options)
                    .flatMap(row -> store.complete(row).thenReturn(Boolean.TRUE), mode.concurrency())
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
        NONE(DispatchPolicy.none(), OutboxRoundTrip.CONCURRENCY, false),
        /** One row in ten with a priority. */
        PRIORITIES(DispatchPolicy.none(), OutboxRoundTrip.CONCURRENCY, false),
        /** Serial per workflow. */
        SERIAL(DispatchPolicy.none().withSerialPerWorkflow(true), OutboxRoundTrip.CONCURRENCY, false),
        /** A cap equal to the dispatcher's concurrency. */
        CAPPED(
                DispatchPolicy.none().withConcurrencyCap(OutboxRoundTrip.CONCURRENCY),
                OutboxRoundTrip.CONCURRENCY,
                false),
        /** A cap of half the dispatcher's concurrency. */
        CAPPED_HALF(DispatchPolicy.none().withConcurrencyCap(HALF_CAP), OutboxRoundTrip.CONCURRENCY, false),
        /** No policy, half the concurrency: the parallelism {@link #CAPPED_HALF} leaves. */
        NONE_HALF(DispatchPolicy.none(), HALF_CAP, false),
        /** Serial per workflow on a few long workflows. */
        SERIAL_FEW(DispatchPolicy.none().withSerialPerWorkflow(true), OutboxRoundTrip.CONCURRENCY, true),
        /** The same rows without a policy. */
        NONE_FEW(DispatchPolicy.none(), OutboxRoundTrip.CONCURRENCY, true);

        private final DispatchPolicy policy;
        private final int concurrency;
        private final boolean few;

        Mode(DispatchPolicy policy, int concurrency, boolean few) {
            this.policy = policy;
            this.concurrency = concurrency;
            this.few = few;
        }

        DispatchPolicy policy() {
            return policy;
        }

        int concurrency() {
            return concurrency;
        }

        int workflows(int rows) {
            return few ? FEW_WORKFLOWS : rows / ACTIVITIES;
        }

        int rowsPerWorkflow() {
            return few ? FEW_ROWS : ACTIVITIES;
        }
    }
}
