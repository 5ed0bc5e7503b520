package dev.durablestore.bench.workload;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.ReactiveStore;
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
import dev.durablestore.micrometer.observation.ObservedStore;
import dev.durablestore.micrometer.observation.StoreObservations;
import dev.durablestore.sqlite.SqliteReactiveStore;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import reactor.core.publisher.Flux;

/**
 * OBS: what the store's observations cost (issue 21). P2's drain (rows staged with
 * {@code appendWithOutbox}, then {@code claimStream} → {@code complete} at concurrency 64,
 * synchronous {@code NORMAL}) run three ways in each run, taking turns going first: off (the store
 * as it is opened: not wrapped, nothing observed, the default), wrapped with the no-op registry
 * ({@code ObservedStore.wrap} returns the store itself), and on (wrapped with a registry whose one
 * handler counts observations, every dispatch inside {@code StoreObservations.dispatch}, no tracer).
 */
public final class ObservationCost implements Workload {

    static final Target OFF_VS_UNWRAPPED = Target.ratio(
            "OBS-noop-vs-off",
            "drained rows/s, NORMAL: observations off via the no-op registry vs the store as opened (no wrapper)",
            "rows/s",
            "store as opened",
            Comparison.AT_LEAST,
            0.9);
    static final Target ON_VS_OFF = Target.ratio(
            "OBS-on-vs-off",
            "drained rows/s, NORMAL: observations on (staging, dispatch, settle observed; no tracer) vs off",
            "rows/s",
            "observations off",
            Comparison.AT_LEAST,
            0.8);

    @Override
    public String id() {
        return "OBS";
    }

    @Override
    public List<Target> targets() {
        return List.of(OFF_VS_UNWRAPPED, ON_VS_OFF);
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int fanOut = ctx.sizes().outboxFanOut();
        int rows = ctx.sizes().outboxRows() / fanOut * fanOut;
        TargetResult.Builder noopVsOff = OFF_VS_UNWRAPPED.builder();
        TargetResult.Builder onVsOff = ON_VS_OFF.builder();
        LongAdder observed = new LongAdder();
        ObservationRegistry counting = ObservationRegistry.create();
        counting.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                observed.increment();
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });

        ctx.log("OBS warm-up");
        drain(ctx, Mode.ON, counting, Math.max(2_000, rows / 5), fanOut);
        drain(ctx, Mode.OFF, counting, Math.max(2_000, rows / 5), fanOut);
        for (int run = 1; run <= ctx.runs(); run++) {
            ctx.log("OBS run " + run + "/" + ctx.runs());
            double[] rate = new double[Mode.values().length];
            for (int turn = 0; turn < Mode.values().length; turn++) {
                Mode mode = Mode.values()[(turn + run - 1) % Mode.values().length];
                rate[mode.ordinal()] = drain(ctx, mode, counting, rows, fanOut);
            }
            double off = rate[Mode.OFF.ordinal()];
            ctx.log(String.format(
                    "OBS   off %.0f rows/s, no-op registry %.0f rows/s, on %.0f rows/s",
                    off, rate[Mode.NOOP.ordinal()], rate[Mode.ON.ordinal()]));
            noopVsOff.run(rate[Mode.NOOP.ordinal()], off);
            onVsOff.run(rate[Mode.ON.ordinal()], off);
        }
        return new Section(
                        "OBS",
                        "Observation cost",
                        "Each run stages " + rows + " rows with `appendWithOutbox` (" + fanOut + " per workflow, 64 in "
                                + "flight, untimed) on a fresh file (`synchronous=NORMAL`) and times P2's drain "
                                + "(`claimStream(maxBatch 100)` → `flatMap(complete, 64)`) three ways, taking turns going "
                                + "first: off (the store as opened, the default: no wrapper), through "
                                + "`ObservedStore.wrap(store, ObservationRegistry.NOOP)` (which returns the store "
                                + "itself), and on (wrapped with a registry whose one handler counts stopped "
                                + "observations; each row's complete inside `StoreObservations.dispatch`, so every "
                                + "row costs a dispatch and a settle observation, and staging is observed too; no "
                                + "tracer, so no trace context is written). Off is the code path of every store that "
                                + "does not ask for observations.")
                .target(noopVsOff.build())
                .target(onVsOff.build());
    }

    private double drain(RunContext ctx, Mode mode, ObservationRegistry counting, int rows, int fanOut) {
        Path db = ctx.freshDb("obs-" + mode.name().toLowerCase());
        List<WorkflowId> workflows = Fixtures.workflows(rows / fanOut);
        Instant now = Instant.now();
        try (SqliteReactiveStore opened = Fixtures.openStore(db, "NORMAL", new CommitCounter())) {
            ObservationRegistry registry = mode == Mode.ON ? counting : ObservationRegistry.NOOP;
            ReactiveStore store = mode == Mode.OFF ? opened : ObservedStore.wrap(opened, registry);
            Flux.fromIterable(workflows)
                    .flatMap(
                            w -> store.appendWithOutbox(
                                    w, List.of(Fixtures.started(w, now)), 0, Fixtures.pendingRows(w, fanOut, now)),
                            64)
                    .then()
                    .block(Duration.ofMinutes(10));
            long total = (long) workflows.size() * fanOut;
            ClaimStreamOptions options =
                    ClaimStreamOptions.defaults().withMaxBatch(100).withPollInterval(Duration.ofMillis(50));
            long began = System.nanoTime();
            store.claimStream(options)
                    .flatMap(
                            row -> (mode == Mode.ON
                                            ? StoreObservations.dispatch(
                                                    registry,
                                                    row,
                                                    store.settleKeys(List.of(row.dispatchKey()), Settlement.complete()))
                                            : store.settleKeys(List.of(row.dispatchKey()), Settlement.complete()))
                                    .thenReturn(Boolean.TRUE),
                            OutboxRoundTrip.CONCURRENCY)
                    .take(total)
                    .then()
                    .block(Duration.ofMinutes(10));
            return Stats.perSecond(total, System.nanoTime() - began);
        } finally {
            ctx.delete(db);
        }
    }

    /** How the drained store is observed. */
    private enum Mode {
        /** The store as opened. */
        OFF,
        /** Wrapped with the no-op registry. */
        NOOP,
        /** Wrapped with a counting registry, dispatches observed. */
        ON
    }
}
