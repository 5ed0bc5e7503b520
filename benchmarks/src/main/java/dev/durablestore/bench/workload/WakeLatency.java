package dev.durablestore.bench.workload;

import dev.durablestore.api.ClaimStreamOptions;
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
import dev.durablestore.bench.raw.RawRows;
import dev.durablestore.bench.raw.RawSql;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.sqlite.SqliteReactiveStore;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

/**
 * P3: how fast an idle claim stream hands out a row staged through the same store. The stream has
 * one row of demand and a poll interval of ten minutes, so only the in-process wake-up can deliver
 * the row in time. Latency runs from the staging {@code Mono}'s success signal (seen by the
 * stager, i.e. after the commit returned and the signal crossed to the store's emit thread) to
 * {@code onNext}. {@code synchronous=NORMAL}.
 */
public final class WakeLatency implements Workload {

    private static final String MODE = "NORMAL";
    private static final Duration POLL = Duration.ofMinutes(10);
    /** Pause between samples so the stream's empty claim finishes and it is asleep again. */
    private static final long IDLE_NANOS = 2_000_000L;

    static final Target P50 = Target.absolute(
            "P3-wake-p50",
            "wake latency p50, staging success signal → onNext, idle claimStream, NORMAL",
            "ms",
            "raw claim txn p50",
            Comparison.AT_MOST,
            1.0);
    static final Target P99 = Target.absolute(
            "P3-wake-p99",
            "wake latency p99, staging success signal → onNext, idle claimStream, NORMAL",
            "ms",
            "raw claim txn p99",
            Comparison.AT_MOST,
            5.0);

    @Override
    public List<Target> targets() {
        return List.of(P50, P99);
    }

    @Override
    public String id() {
        return "P3";
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int samples = ctx.sizes().wakeSamples();
        TargetResult.Builder p50 = P50.builder();
        TargetResult.Builder p99 = P99.builder();
        List<Double> fromSubscribeP50 = new ArrayList<>();
        List<Double> fromSubscribeP99 = new ArrayList<>();
        List<Double> early = new ArrayList<>();

        ctx.log("P3 warm-up");
        measure(ctx, Math.max(50, samples / 5));
        for (int run = 1; run <= ctx.runs(); run++) {
            ctx.log("P3 run " + run + "/" + ctx.runs());
            Samples s = measure(ctx, samples);
            double[] raw = rawClaimLatencies(ctx, samples);
            double[] wake = Stats.sortedMillis(s.fromSuccess);
            double[] whole = Stats.sortedMillis(s.fromSubscribe);
            p50.run(Stats.percentile(wake, 50), Stats.percentile(raw, 50));
            p99.run(Stats.percentile(wake, 99), Stats.percentile(raw, 99));
            fromSubscribeP50.add(Stats.percentile(whole, 50));
            fromSubscribeP99.add(Stats.percentile(whole, 99));
            early.add((double) s.early);
            ctx.log(String.format(
                    "P3   p50 %.3f ms, p99 %.3f ms, max %.3f ms; raw claim txn p50 %.3f ms",
                    Stats.percentile(wake, 50),
                    Stats.percentile(wake, 99),
                    wake[wake.length - 1],
                    Stats.percentile(raw, 50)));
        }
        return new Section(
                        "P3",
                        "Wake latency",
                        "One store (`synchronous=NORMAL`), one `claimStream` with `pollInterval` " + POLL.toMinutes()
                                + " min and one row of demand at a time. Each sample waits " + IDLE_NANOS / 1_000_000
                                + " ms (the stream's empty claim returns and it sleeps), then stages one row with "
                                + "`appendWithOutbox` (a new workflow's `WorkflowStarted` plus the row) and takes the time "
                                + "in `doOnSuccess` of the staging `Mono` — after the commit returned, as the stager sees "
                                + "it — and again in the subscriber's `onNext`. " + samples
                                + " samples per run; p50 and "
                                + "p99 per run, medians over runs. The context baseline is one raw JDBC claim transaction "
                                + "(`BEGIN IMMEDIATE`, `UPDATE … RETURNING` of one row, `COMMIT`), the least work a wake-up "
                                + "must do after the staging commit.")
                .target(p50.build())
                .target(p99.build())
                .figure("store: staging subscribe → onNext p50 (includes the staging commit)", fromSubscribeP50, "ms")
                .figure("store: staging subscribe → onNext p99", fromSubscribeP99, "ms")
                .figure("samples whose onNext came before the staging success signal (counted as 0)", early, "");
    }

    /** The latencies of one run, in nanoseconds. */
    private record Samples(long[] fromSuccess, long[] fromSubscribe, int early) {}

    private Samples measure(RunContext ctx, int samples) throws InterruptedException {
        Path db = ctx.freshDb("p3-store");
        long[] fromSuccess = new long[samples];
        long[] fromSubscribe = new long[samples];
        int early = 0;
        BlockingQueue<Long> arrivals = new LinkedBlockingQueue<>();
        OneAtATime subscriber = new OneAtATime(arrivals);
        try (SqliteReactiveStore store = Fixtures.openStore(db, MODE)) {
            store.claimStream(ClaimStreamOptions.defaults().withMaxBatch(1).withPollInterval(POLL))
                    .subscribe(subscriber);
            Instant now = Instant.now();
            for (int i = 0; i < samples; i++) {
                LockSupport.parkNanos(IDLE_NANOS);
                WorkflowId w = WorkflowId.random();
                OutboxRow row = Fixtures.pendingRow(w, 1, now);
                AtomicLong committed = new AtomicLong();
                long subscribed = System.nanoTime();
                store.appendWithOutbox(w, List.of(Fixtures.started(w, now)), 0, List.of(row))
                        .doOnSuccess(v -> committed.set(System.nanoTime()))
                        .block(Duration.ofSeconds(30));
                Long arrived = arrivals.poll(30, TimeUnit.SECONDS);
                if (arrived == null) {
                    throw new IllegalStateException("the claim stream did not deliver a staged row within 30 s");
                }
                long latency = arrived - committed.get();
                if (latency < 0) {
                    early++;
                }
                fromSuccess[i] = Math.max(0, latency);
                fromSubscribe[i] = arrived - subscribed;
                subscriber.requestOne();
            }
            subscriber.dispose();
        } finally {
            ctx.delete(db);
        }
        return new Samples(fromSuccess, fromSubscribe, early);
    }

    private double[] rawClaimLatencies(RunContext ctx, int samples) throws SQLException {
        Path db = ctx.freshDb("p3-raw");
        RawRows rows = new RawRows(EventCodec.create());
        long[] nanos = new long[samples];
        try (RawDb raw = RawDb.create(db, MODE);
                PreparedStatement insert = raw.connection().prepareStatement(RawSql.INSERT_OR_IGNORE_ROW);
                PreparedStatement claim = raw.connection().prepareStatement(RawSql.CLAIM_BATCH)) {
            Instant now = Instant.now();
            for (int i = 0; i < samples; i++) {
                raw.begin();
                rows.bindRow(insert, Fixtures.pendingRow(WorkflowId.random(), 1, now), 0L);
                insert.executeUpdate();
                raw.commit();
                long began = System.nanoTime();
                raw.begin();
                long t = RawDb.nowNanos();
                claim.setLong(1, t);
                claim.setLong(2, t);
                claim.setInt(3, 1);
                try (ResultSet rs = claim.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("raw claim found no row");
                    }
                    rows.readRow(rs);
                }
                raw.commit();
                nanos[i] = System.nanoTime() - began;
            }
        } finally {
            ctx.delete(db);
        }
        return Stats.sortedMillis(nanos);
    }

    /** Requests one row at a time and reports when each arrives. */
    private static final class OneAtATime extends BaseSubscriber<OutboxRow> {
        private final BlockingQueue<Long> arrivals;

        OneAtATime(BlockingQueue<Long> arrivals) {
            this.arrivals = arrivals;
        }

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            subscription.request(1);
        }

        @Override
        protected void hookOnNext(OutboxRow row) {
            arrivals.add(System.nanoTime());
        }

        void requestOne() {
            request(1);
        }
    }
}
