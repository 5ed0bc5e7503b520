package dev.durablestore.bench.workload;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
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
import java.util.function.Supplier;
import reactor.core.publisher.Flux;

/**
 * P5: reading the tail of a long history costs about what reading a short history costs:
 * {@code readHistoryFrom} of the last 10 events of a long history vs {@code readHistory} of a
 * 10-event history, in the same file.
 */
public final class RangeRead implements Workload {

    private static final int TAIL = 10;
    private static final int APPEND_CHUNK = 1_000;
    private static final String MODE = "NORMAL";

    static final Target P50 = Target.ratio(
            "P5-tail-vs-short",
            "latency p50: readHistoryFrom(last 10 of a 100k-event history; 20k in --quick) vs readHistory(10 events)",
            "ms",
            "readHistory, 10 events",
            Comparison.AT_MOST,
            1.5);

    @Override
    public List<Target> targets() {
        return List.of(P50);
    }

    @Override
    public String id() {
        return "P5";
    }

    @Override
    public Section run(RunContext ctx) throws Exception {
        int length = ctx.sizes().historyEvents();
        int reads = ctx.sizes().reads();
        TargetResult.Builder ratio = P50.builder();
        List<Double> p99Ratio = new ArrayList<>();

        Path db = ctx.freshDb("p5-store");
        WorkflowId longId = WorkflowId.random();
        WorkflowId shortId = WorkflowId.random();
        try {
            long began = System.nanoTime();
            try (SqliteReactiveStore store = Fixtures.openStore(db, MODE)) {
                build(store, longId, length);
                build(store, shortId, TAIL);
            }
            ctx.log(String.format("P5 built a %d-event history in %.1f s", length, (System.nanoTime() - began) / 1e9));
            long from = length - TAIL + 1;
            for (int run = 1; run <= ctx.runs(); run++) {
                ctx.log("P5 run " + run + "/" + ctx.runs());
                try (SqliteReactiveStore store = Fixtures.openStore(db, MODE)) {
                    int warm = Math.max(20, reads / 10);
                    long[] tail = new long[reads - warm];
                    long[] whole = new long[reads - warm];
                    for (int i = 0; i < reads; i++) {
                        boolean tailFirst = i % 2 == 0;
                        long a = time(
                                tailFirst
                                        ? () -> store.readHistoryFrom(longId, from)
                                        : () -> store.readHistory(shortId));
                        long b = time(
                                tailFirst
                                        ? () -> store.readHistory(shortId)
                                        : () -> store.readHistoryFrom(longId, from));
                        if (i >= warm) {
                            tail[i - warm] = tailFirst ? a : b;
                            whole[i - warm] = tailFirst ? b : a;
                        }
                    }
                    double[] tailMs = Stats.sortedMillis(tail);
                    double[] wholeMs = Stats.sortedMillis(whole);
                    ratio.run(Stats.percentile(tailMs, 50), Stats.percentile(wholeMs, 50));
                    p99Ratio.add(Stats.percentile(tailMs, 99) / Stats.percentile(wholeMs, 99));
                    ctx.log(String.format(
                            "P5   p50 tail %.3f ms, short history %.3f ms",
                            Stats.percentile(tailMs, 50), Stats.percentile(wholeMs, 50)));
                }
            }
        } finally {
            ctx.delete(db);
        }
        return new Section(
                        "P5",
                        "Range read",
                        "One file (`synchronous=NORMAL`) holding a " + length + "-event history (a `WorkflowStarted` "
                                + "then `SignalReceived` events, appended " + APPEND_CHUNK + " per append) and a "
                                + TAIL
                                + "-event history of the same kinds. Each run reopens the store and times " + reads
                                + " reads of each kind, alternating, each collected to a list and checked for " + TAIL
                                + " events (the first 10% are warm-up): `readHistoryFrom(long, head - 9)` against "
                                + "`readHistory(short)`; p50 per run, the ratio per run, median over runs.")
                .target(ratio.build())
                .figure("latency ratio p99 (context)", p99Ratio, "");
    }

    private static void build(SqliteReactiveStore store, WorkflowId w, int length) {
        Instant now = Instant.now();
        long head = 0;
        while (head < length) {
            int count = (int) Math.min(APPEND_CHUNK, length - head);
            List<Event> events = new ArrayList<>(count);
            long seq = head + 1;
            if (seq == 1) {
                events.add(Fixtures.started(w, now));
                seq++;
            }
            events.addAll(Fixtures.signals(w, seq, count - events.size(), now));
            store.append(w, events, head).block(Duration.ofMinutes(1));
            head += count;
        }
    }

    private static long time(Supplier<Flux<Event>> read) {
        long began = System.nanoTime();
        List<Event> events = read.get().collectList().block(Duration.ofSeconds(30));
        long nanos = System.nanoTime() - began;
        if (events == null || events.size() != TAIL) {
            throw new IllegalStateException("read returned " + (events == null ? 0 : events.size()) + " events");
        }
        return nanos;
    }
}
