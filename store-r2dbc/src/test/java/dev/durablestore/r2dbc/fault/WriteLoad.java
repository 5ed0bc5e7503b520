package dev.durablestore.r2dbc.fault;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunId;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.api.event.WorkflowStarted;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A steady load on one store, with a ledger of what the store acknowledged: one writer per
 * workflow appending one event per step with two outbox rows ({@code appendWithOutbox}), one
 * claim stream taking those rows and completing each ({@code complete}, a settle).
 *
 * <p>Step {@code k} of a workflow appends event {@code k} at expected head {@code k - 1} with rows of
 * ordinals {@code 2k} and {@code 2k + 1}. A failed attempt is retried at the same step; a
 * {@link SequenceConflictException} whose head is {@code k} on a retry means the earlier attempt
 * committed although its caller got an error (unacknowledged but present). Every attempt is bounded
 * by {@link #ATTEMPT_BOUND}: one that takes longer is recorded as a hang, and the tests require none.
 */
final class WriteLoad implements AutoCloseable {

    /** The longest an operation may take before it counts as hung. */
    static final Duration ATTEMPT_BOUND = Duration.ofSeconds(10);

    private static final Duration RETRY_DELAY = Duration.ofMillis(50);
    /** one run id for every workflow: random ids read SecureRandom, a blocking call on the writers' threads */
    private static final RunId RUN = RunId.random();

    private final ReactiveStore store;
    private final List<WorkflowId> workflows = new ArrayList<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    /** per workflow: the steps whose append was acknowledged */
    final Map<WorkflowId, Set<Long>> acknowledged = new ConcurrentHashMap<>();
    /** dispatch keys whose {@code complete} was acknowledged */
    final Set<String> settled = ConcurrentHashMap.newKeySet();

    final AtomicInteger failedAttempts = new AtomicInteger();
    final AtomicInteger committedButFailed = new AtomicInteger();
    final List<String> hangs = java.util.Collections.synchronizedList(new ArrayList<>());
    final AtomicLong longestFailureNanos = new AtomicLong();
    final AtomicLong longestAcknowledgedNanos = new AtomicLong();
    final AtomicReference<Throwable> claimStreamEnded = new AtomicReference<>();
    final AtomicInteger claimedRows = new AtomicInteger();
    private final Map<WorkflowId, AtomicInteger> failuresPerWorkflow = new ConcurrentHashMap<>();
    private final AtomicInteger appendsAcked = new AtomicInteger();
    private Disposable writers;
    private Disposable claimer;
    private Mono<Void> writersDone;

    WriteLoad(ReactiveStore store, int workflowCount) {
        this.store = store;
        for (int i = 0; i < workflowCount; i++) {
            WorkflowId w = WorkflowId.random();
            workflows.add(w);
            acknowledged.put(w, ConcurrentHashMap.newKeySet());
            failuresPerWorkflow.put(w, new AtomicInteger());
        }
    }

    List<WorkflowId> workflows() {
        return workflows;
    }

    /** Starts the writers and the claim stream. */
    void start() {
        Mono<Void> all = Flux.fromIterable(workflows)
                .flatMap(w -> write(w).subscribeOn(Schedulers.parallel()), workflows.size())
                .then()
                .cache();
        writersDone = all;
        writers = all.subscribe();
        ClaimStreamOptions options =
                ClaimStreamOptions.defaults().withMaxBatch(16).withPollInterval(Duration.ofMillis(100));
        claimer = store.claimStream(options)
                .doOnNext(r -> claimedRows.incrementAndGet())
                .flatMap(this::settle, 8)
                .subscribe(
                        null,
                        claimStreamEnded::set,
                        () -> claimStreamEnded.set(new IllegalStateException("the claim stream completed")));
    }

    /** @return acknowledged appends so far */
    int appendsAcknowledged() {
        return appendsAcked.get();
    }

    /** @return the number of workflows whose writer has seen at least {@code n} failed attempts */
    long workflowsWithFailures(int n) {
        return failuresPerWorkflow.values().stream().filter(c -> c.get() >= n).count();
    }

    /** Stops the writers after their current step; waits (bounded) for them. */
    void stop(Duration bound) {
        stopping.set(true);
        writersDone.block(bound);
    }

    @Override
    public void close() {
        stopping.set(true);
        if (writers != null) {
            writers.dispose();
        }
        if (claimer != null) {
            claimer.dispose();
        }
    }

    private Mono<Void> write(WorkflowId w) {
        return Flux.<Long, Long>generate(() -> 1L, (step, sink) -> {
                    sink.next(step);
                    return step + 1;
                })
                .takeWhile(step -> !stopping.get())
                .concatMap(step -> attemptStep(w, step), 1)
                .then();
    }

    /** One step, retried until it is known to be committed (or the load stops). */
    private Mono<Void> attemptStep(WorkflowId w, long step) {
        return Mono.defer(() -> {
            long begin = System.nanoTime();
            return bounded(
                            "appendWithOutbox " + w + "#" + step,
                            store.appendWithOutbox(w, List.of(event(w, step)), step - 1, rows(w, step)))
                    .then(Mono.fromRunnable(() -> {
                        acknowledged.get(w).add(step);
                        appendsAcked.incrementAndGet();
                        longestAcknowledgedNanos.accumulateAndGet(System.nanoTime() - begin, Math::max);
                    }))
                    .onErrorResume(e -> {
                        if (e instanceof SequenceConflictException c && c.found() == step) {
                            committedButFailed.incrementAndGet(); // an earlier attempt did commit
                            return Mono.empty();
                        }
                        failedAttempts.incrementAndGet();
                        failuresPerWorkflow.get(w).incrementAndGet();
                        longestFailureNanos.accumulateAndGet(System.nanoTime() - begin, Math::max);
                        if (stopping.get() || e instanceof Hang) {
                            return Mono.empty();
                        }
                        return Mono.delay(RETRY_DELAY).then(attemptStep(w, step));
                    })
                    .then();
        });
    }

    private Mono<Void> settle(OutboxRow row) {
        return bounded(
                        "complete " + row.dispatchKey(),
                        store.settleKeys(List.of(row.dispatchKey()), Settlement.complete()))
                .doOnSuccess(v -> settled.add(row.dispatchKey()))
                .onErrorResume(e -> Mono.empty()); // unacknowledged: the row stays claimed (the reaper's job)
    }

    private <T> Mono<T> bounded(String what, Mono<T> operation) {
        return operation.timeout(ATTEMPT_BOUND, Mono.defer(() -> {
            hangs.add(what);
            return Mono.error(new Hang(what));
        }));
    }

    static Event event(WorkflowId w, long seq) {
        EventEnvelope envelope = new EventEnvelope(seq, Instant.now(), w);
        return seq == 1
                ? new WorkflowStarted(envelope, "fault", Payload.json("{}"), RUN, null, new PackageVersion("v1"))
                : new SignalReceived(envelope, "s" + seq, Payload.json("{}"));
    }

    static List<OutboxRow> rows(WorkflowId w, long step) {
        Instant now = Instant.now();
        return List.of(
                OutboxRow.pending(w, 2 * step, "work", Payload.json("{}"), now),
                OutboxRow.pending(w, 2 * step + 1, "work", Payload.json("{}"), now));
    }

    /** An operation that did not end within the bound. */
    static final class Hang extends RuntimeException {
        Hang(String what) {
            super(what + " did not end within " + ATTEMPT_BOUND);
        }
    }
}
