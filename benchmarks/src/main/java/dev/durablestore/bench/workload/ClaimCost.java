package dev.durablestore.bench.workload;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.RunContext;
import dev.durablestore.bench.Section;
import dev.durablestore.bench.Stats;
import dev.durablestore.bench.Target;
import dev.durablestore.bench.Target.Comparison;
import dev.durablestore.bench.TargetResult;
import dev.durablestore.bench.Workload;
import dev.durablestore.bench.raw.RawLoader;
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;

/**
 * P4: does a claim get slower when the outbox holds a large settled history? Two files with the
 * same pending rows, one also holding {@code settledRows} settled rows (loaded with raw JDBC before
 * the store opens), one without; claims alternate between them.
 */
public final class ClaimCost implements Workload {

    /** Rows per timed claim. */
    public static final int CLAIM_LIMIT = 10;

    private static final String MODE = "NORMAL";

    static final Target P50 = Target.ratio(
            "P4-claim-settled-vs-empty",
            "claim(10) latency p50, NORMAL: 1M settled rows in the outbox (100k in --quick) vs none",
            "ms",
            "no settled rows",
            Comparison.AT_MOST,
            1.2);

    @Override
    public List<Target> targets() {
        return List.of(P50);
    }

    @Override
    public String id() {
        return "P4";
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int settled = ctx.sizes().settledRows();
        int claims = ctx.sizes().claims();
        TargetResult.Builder ratio = P50.builder();
        List<Double> ratio99 = new ArrayList<>();
        List<Double> openBig = new ArrayList<>();
        List<Double> openEmpty = new ArrayList<>();

        RawLoader loader = new RawLoader(new RawRows(EventCodec.create()));
        Path bigTemplate = ctx.freshDb("p4-template-settled");
        Path emptyTemplate = ctx.freshDb("p4-template-empty");
        long loadBegan = System.nanoTime();
        loader.load(bigTemplate, settled, OutboxStatus.DONE);
        loader.load(emptyTemplate, 0, OutboxStatus.DONE);
        double loadSeconds = (System.nanoTime() - loadBegan) / 1e9;
        ctx.log(String.format(
                "P4 loaded %d settled rows with raw JDBC in %.1f s (%.1f MB)",
                settled, loadSeconds, Files.size(bigTemplate) / 1e6));
        try {
            for (int run = 1; run <= ctx.runs(); run++) {
                ctx.log("P4 run " + run + "/" + ctx.runs());
                Path big = copy(ctx, bigTemplate, "p4-settled");
                Path empty = copy(ctx, emptyTemplate, "p4-empty");
                long t0 = System.nanoTime();
                SqliteReactiveStore bigStore = Fixtures.openStore(big, MODE);
                long t1 = System.nanoTime();
                SqliteReactiveStore emptyStore = Fixtures.openStore(empty, MODE);
                long t2 = System.nanoTime();
                openBig.add((t1 - t0) / 1e6);
                openEmpty.add((t2 - t1) / 1e6);
                try {
                    stagePending(bigStore, claims * CLAIM_LIMIT);
                    stagePending(emptyStore, claims * CLAIM_LIMIT);
                    int warm = Math.max(20, claims / 10);
                    long[] bigNanos = new long[claims - warm];
                    long[] emptyNanos = new long[claims - warm];
                    for (int i = 0; i < claims; i++) {
                        boolean bigFirst = i % 2 == 0;
                        long a = timeClaim(bigFirst ? bigStore : emptyStore);
                        long b = timeClaim(bigFirst ? emptyStore : bigStore);
                        if (i >= warm) {
                            bigNanos[i - warm] = bigFirst ? a : b;
                            emptyNanos[i - warm] = bigFirst ? b : a;
                        }
                    }
                    double[] bigMs = Stats.sortedMillis(bigNanos);
                    double[] emptyMs = Stats.sortedMillis(emptyNanos);
                    ratio.run(Stats.percentile(bigMs, 50), Stats.percentile(emptyMs, 50));
                    ratio99.add(Stats.percentile(bigMs, 99) / Stats.percentile(emptyMs, 99));
                    ctx.log(String.format(
                            "P4   p50 %.3f ms with settled rows, %.3f ms without",
                            Stats.percentile(bigMs, 50), Stats.percentile(emptyMs, 50)));
                } finally {
                    bigStore.close();
                    emptyStore.close();
                    ctx.delete(big);
                    ctx.delete(empty);
                }
            }
        } finally {
            ctx.delete(bigTemplate);
            ctx.delete(emptyTemplate);
        }
        return new Section(
                        "P4",
                        "Claim cost vs table size",
                        "Two files made with raw JDBC before the store opens them: one holding " + settled + " settled "
                                + "(`done`) rows over 10 rows per workflow with `settled_at` spread over the past day, one "
                                + "empty; the store's schema and indexes are created by the loader, so opening the store "
                                + "creates nothing. Each run copies both, opens a store on each (`synchronous=NORMAL`), "
                                + "stages " + claims * CLAIM_LIMIT
                                + " pending rows in each with `appendOutboxBatch`, then "
                                + "times " + claims + " sequential `claim(ClaimRequest.of(" + CLAIM_LIMIT
                                + "))` calls per store, alternating "
                                + "between the stores (the first 10% are warm-up). Loading took "
                                + String.format("%.1f", loadSeconds) + " s.")
                .target(ratio.build())
                .figure("latency ratio p99, settled rows vs none", ratio99, "")
                .figure("store open (schema check and migrations) with " + settled + " settled rows", openBig, "ms")
                .figure("store open with an empty outbox", openEmpty, "ms");
    }

    private static Path copy(RunContext ctx, Path template, String label) throws java.io.IOException {
        Path copy = ctx.freshDb(label);
        Files.copy(template, copy);
        return copy;
    }

    private static void stagePending(SqliteReactiveStore store, int rows) {
        Instant now = Instant.now().minusSeconds(1);
        List<OutboxRow> all = new ArrayList<>(rows);
        WorkflowId w = WorkflowId.random();
        for (int i = 0; i < rows; i++) {
            if (i % 10 == 0) {
                w = WorkflowId.random();
            }
            all.add(Fixtures.pendingRow(w, i % 10 + 1, now.plusNanos(i)));
        }
        Flux.fromIterable(all)
                .buffer(1_000)
                .concatMap(store::appendOutboxBatch)
                .then()
                .block(Duration.ofMinutes(5));
    }

    private static long timeClaim(SqliteReactiveStore store) {
        long began = System.nanoTime();
        List<OutboxRow> rows = store.claim(ClaimRequest.of(CLAIM_LIMIT)).block(Duration.ofSeconds(30));
        long nanos = System.nanoTime() - began;
        if (rows == null || rows.size() != CLAIM_LIMIT) {
            throw new IllegalStateException("claim returned " + (rows == null ? 0 : rows.size()) + " rows");
        }
        return nanos;
    }
}
