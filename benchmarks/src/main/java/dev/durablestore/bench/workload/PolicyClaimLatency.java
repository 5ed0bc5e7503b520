package dev.durablestore.bench.workload;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Stats;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * POL's claim latency: one {@code claim(scope, 64, none held, policy)} at a time on a table that
 * keeps {@code pending} pending rows, on one file per {@link Kind}, the kinds taking turns claim by
 * claim (as P4 does). After each timed claim the claimed rows are completed in one call and as many
 * rows are staged again, untimed, so the table neither grows nor drains.
 */
final class PolicyClaimLatency {

    /** Rows per timed claim. */
    static final int LIMIT = 64;
    /** Rows staged again after each claim: whole workflows of {@link DispatchPolicyCost#ACTIVITIES}. */
    static final int RESTAGED_WORKFLOWS = (LIMIT + DispatchPolicyCost.ACTIVITIES - 1) / DispatchPolicyCost.ACTIVITIES;

    /** What the claim is asked to enforce, and how the rows are staged. */
    enum Kind {
        /** No policy, no priorities: the baseline. */
        NONE(DispatchPolicy.none(), false),
        /** One row in ten with a priority from 1 to 9, no policy. */
        PRIORITIES(DispatchPolicy.none(), true),
        /** Serial per workflow. */
        SERIAL(DispatchPolicy.none().withSerialPerWorkflow(true), false),
        /** A cap of 64 on the route, which a claim of 64 on a route with nothing claimed never reaches. */
        CAPPED(DispatchPolicy.none().withConcurrencyCap(LIMIT), false);

        private final DispatchPolicy policy;
        private final boolean prioritized;

        Kind(DispatchPolicy policy, boolean prioritized) {
            this.policy = policy;
            this.prioritized = prioritized;
        }

        DispatchPolicy policy() {
            return policy;
        }

        boolean prioritized() {
            return prioritized;
        }
    }

    /**
     * One run's latencies, indexed by {@link Kind#ordinal()}.
     *
     * @param p50 median claim latency in ms
     * @param p99 99th percentile in ms
     */
    record Run(double[] p50, double[] p99) {}

    private PolicyClaimLatency() {}

    /**
     * @param ctx the run context
     * @param pending pending rows each table holds throughout
     * @param claims timed claims per kind, after a tenth as many untimed
     * @return the latencies of this run
     */
    static Run measure(RunContext ctx, int pending, int claims) {
        Kind[] kinds = Kind.values();
        Path[] dbs = new Path[kinds.length];
        SqliteReactiveStore[] stores = new SqliteReactiveStore[kinds.length];
        long[][] nanos = new long[kinds.length][claims];
        int warm = Math.max(10, claims / 10);
        try {
            for (Kind k : kinds) {
                dbs[k.ordinal()] = ctx.freshDb("pol-claim-" + k.name().toLowerCase());
                stores[k.ordinal()] = Fixtures.openStore(dbs[k.ordinal()], "NORMAL");
                stage(stores[k.ordinal()], k, pending / DispatchPolicyCost.ACTIVITIES);
            }
            for (int i = 0; i < warm + claims; i++) {
                for (int turn = 0; turn < kinds.length; turn++) {
                    Kind k = kinds[(turn + i) % kinds.length];
                    long t = timeClaim(stores[k.ordinal()], k);
                    if (i >= warm) {
                        nanos[k.ordinal()][i - warm] = t;
                    }
                }
            }
        } finally {
            for (int k = 0; k < kinds.length; k++) {
                if (stores[k] != null) {
                    stores[k].close();
                }
                if (dbs[k] != null) {
                    ctx.delete(dbs[k]);
                }
            }
        }
        double[] p50 = new double[kinds.length];
        double[] p99 = new double[kinds.length];
        for (int k = 0; k < kinds.length; k++) {
            double[] ms = Stats.sortedMillis(nanos[k]);
            p50[k] = Stats.percentile(ms, 50);
            p99[k] = Stats.percentile(ms, 99);
        }
        return new Run(p50, p99);
    }

    /** Times one claim, then completes what it took and stages as many rows again (untimed). */
    private static long timeClaim(SqliteReactiveStore store, Kind kind) {
        ClaimScope scope = ClaimScope.of(OutboxRow.DEFAULT_ROUTE, OutboxRow.DEFAULT_ROUTE);
        long began = System.nanoTime();
        List<OutboxRow> rows = store.claim(
                        ClaimRequest.of(LIMIT).withScope(scope).withPolicy(kind.policy()))
                .block(Duration.ofSeconds(30));
        long nanos = System.nanoTime() - began;
        if (rows == null || rows.size() != LIMIT) {
            throw new IllegalStateException(kind + " claim returned " + (rows == null ? 0 : rows.size()) + " rows");
        }
        store.settleKeys(rows.stream().map(OutboxRow::dispatchKey).toList(), Settlement.complete())
                .block(Duration.ofSeconds(30));
        stage(store, kind, RESTAGED_WORKFLOWS);
        return nanos;
    }

    /** Stages {@code workflows} workflows' rows, all at once per workflow. */
    private static void stage(SqliteReactiveStore store, Kind kind, int workflows) {
        Instant now = Instant.now().minusSeconds(1);
        List<OutboxRow> all = new ArrayList<>(workflows * DispatchPolicyCost.ACTIVITIES);
        for (WorkflowId w : Fixtures.workflows(workflows)) {
            for (OutboxRow r : Fixtures.pendingRows(w, DispatchPolicyCost.ACTIVITIES, now)) {
                all.add(kind.prioritized() ? DispatchPolicyCost.prioritized(r, all.size() + 1) : r);
            }
        }
        Flux.fromIterable(all)
                .buffer(1_000)
                .concatMap(store::appendOutboxBatch)
                .then()
                .block(Duration.ofMinutes(5));
    }
}
