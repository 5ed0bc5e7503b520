package dev.durablestore.bench.pg;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.bench.Stats;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;

/**
 * The timed loops of the {@code PG} workload, written against {@link ReactiveStore} only, so the
 * SQLite store and the PostgreSQL nodes run exactly the same code (the loops of P1 and P2).
 */
final class Drives {

    private static final Duration TIMEOUT = Duration.ofMinutes(10);
    private static final int CLAIM_BATCH = 100;
    private static final int STAGING_IN_FLIGHT = 64;

    /**
     * What a drain measured.
     *
     * @param rowsPerSecond completed rows per second, first claim to last complete
     * @param duplicates rows handed out more than once (to the same or another node)
     * @param perNode rows each node received
     */
    record Drain(double rowsPerSecond, long duplicates, List<Long> perNode) {}

    private Drives() {}

    /**
     * @param n how many
     * @return {@code n} first events ({@code WorkflowStarted}), each of a new workflow
     */
    static List<Event> startEvents(int n) {
        Instant now = Instant.now();
        List<Event> events = new ArrayList<>(n);
        for (WorkflowId w : Fixtures.workflows(n)) {
            events.add(Fixtures.started(w, now));
        }
        return events;
    }

    /**
     * P1's loop: every event appended on its own workflow at expected head 0, {@code inFlight} at once.
     *
     * @param store the store
     * @param events from {@link #startEvents}
     * @param inFlight appends in flight
     * @return appends per second
     */
    static double appendRate(ReactiveStore store, List<Event> events, int inFlight) {
        long began = System.nanoTime();
        Flux.fromIterable(events)
                .flatMap(e -> store.append(e.workflowId(), List.of(e), 0), inFlight)
                .then()
                .block(TIMEOUT);
        return Stats.perSecond(events.size(), System.nanoTime() - began);
    }

    /**
     * P2's staging: per workflow one {@code appendWithOutbox} of its {@code WorkflowStarted} and
     * {@code fanOut} pending rows, 64 in flight.
     *
     * @param store the store
     * @param workflows the workflows
     * @param fanOut rows per workflow
     * @return staged rows per second
     */
    static double stageWithOutbox(ReactiveStore store, List<WorkflowId> workflows, int fanOut) {
        Instant now = Instant.now();
        long began = System.nanoTime();
        Flux.fromIterable(workflows)
                .flatMap(
                        w -> store.appendWithOutbox(
                                w, List.of(Fixtures.started(w, now)), 0, Fixtures.pendingRows(w, fanOut, now)),
                        STAGING_IN_FLIGHT)
                .then()
                .block(TIMEOUT);
        return Stats.perSecond((long) workflows.size() * fanOut, System.nanoTime() - began);
    }

    /**
     * Stages {@code fanOut} pending rows for each workflow with {@code appendOutboxBatch}, a few
     * hundred rows per call (untimed set-up, faster than one call per workflow).
     *
     * @param store the store
     * @param workflows the workflows
     * @param fanOut rows per workflow
     */
    static void stageRows(ReactiveStore store, List<WorkflowId> workflows, int fanOut) {
        Instant now = Instant.now();
        Flux.fromIterable(workflows)
                .buffer(Math.max(1, 500 / fanOut))
                .map(batch -> {
                    List<OutboxRow> rows = new ArrayList<>(batch.size() * fanOut);
                    batch.forEach(w -> rows.addAll(Fixtures.pendingRows(w, fanOut, now)));
                    return rows;
                })
                .flatMap(store::appendOutboxBatch, 4)
                .then()
                .block(TIMEOUT);
    }

    /**
     * P2's drain, on one or more nodes at once: each node runs {@code claimStream(maxBatch 100)} and
     * completes every row it receives, {@code concurrency} completes in flight per node, until
     * {@code total} rows were completed in all. Every row handed out is recorded, so a row handed
     * out twice is counted (it would also leave another row undrained).
     *
     * @param nodes the stores sharing one outbox
     * @param total rows staged
     * @param concurrency completes in flight per node
     * @return the rate and the exactly-once evidence
     */
    static Drain drain(List<? extends ReactiveStore> nodes, long total, int concurrency) {
        return drain(nodes, total, concurrency, options());
    }

    /** @return the claim stream options of {@link #drain}: batches of 100, a 50 ms poll */
    static ClaimStreamOptions options() {
        return ClaimStreamOptions.defaults().withMaxBatch(CLAIM_BATCH).withPollInterval(Duration.ofMillis(50));
    }

    /**
     * {@link #drain(List, long, int)} with other claim stream options (a dispatch policy).
     *
     * @param nodes the stores sharing one outbox
     * @param total rows staged
     * @param concurrency completes in flight per node
     * @param options every node's claim stream options
     * @return the rate and the exactly-once evidence
     */
    static Drain drain(List<? extends ReactiveStore> nodes, long total, int concurrency, ClaimStreamOptions options) {
        // sized for every row up front: grown from its default size as rows came in, its resizing
        // ran on the event loop that also runs the store (3% of that thread's JFR samples)
        Map<String, Integer> receivedBy = new ConcurrentHashMap<>(Math.toIntExact(total));
        AtomicLong duplicates = new AtomicLong();
        List<AtomicLong> perNode = new ArrayList<>();
        List<Flux<Boolean>> streams = new ArrayList<>();
        for (int n = 0; n < nodes.size(); n++) {
            ReactiveStore node = nodes.get(n);
            int id = n;
            AtomicLong mine = new AtomicLong();
            perNode.add(mine);
            streams.add(node.claimStream(options)
                    .doOnNext(row -> {
                        mine.incrementAndGet();
                        if (receivedBy.putIfAbsent(row.dispatchKey(), id) != null) {
                            duplicates.incrementAndGet();
                        }
                    })
                    .flatMap(
                            row -> node.settleKeys(List.of(row.dispatchKey()), Settlement.complete())
                                    .thenReturn(Boolean.TRUE),
                            concurrency));
        }
        long began = System.nanoTime();
        Flux.merge(streams).take(total).then().block(TIMEOUT);
        double rate = Stats.perSecond(total, System.nanoTime() - began);
        return new Drain(
                rate, duplicates.get(), perNode.stream().map(AtomicLong::get).toList());
    }
}
