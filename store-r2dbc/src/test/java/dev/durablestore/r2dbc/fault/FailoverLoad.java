package dev.durablestore.r2dbc.fault;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A steady load on several store instances sharing one database, with a ledger of what each
 * acknowledged, for the failover tests.
 *
 * <p>Each instance writes its own workflows, one writer per workflow: step {@code k} writes event
 * {@code k} at expected head {@code k - 1} with outbox rows of ordinals {@code 2k} and {@code 2k + 1},
 * as an {@code appendWithOutbox} (odd steps with nothing to settle) or as a {@code commitStep} that
 * also completes, fenced by their claims, the rows of its workflow claimed since its previous step.
 * Each instance runs a claim stream on the default route with a 30 s poll interval (so it moves on
 * wake-ups, never on its poll): it completes the rows of even ordinal itself ({@code settle}, fenced)
 * and hands those of odd ordinal to their workflow's writer, on whichever instance, for its next step.
 * A failed attempt is retried at the same step with the same rows to settle; a
 * {@link SequenceConflictException} at head {@code k} on a retry means an earlier attempt committed
 * although its caller got an error. Every attempt is bounded by {@link WriteLoad#ATTEMPT_BOUND}; one
 * that takes longer is recorded as a hang.
 */
final class FailoverLoad implements AutoCloseable {

    /** The claim streams' poll interval: far longer than any wait the tests allow for a wake-up. */
    static final Duration POLL = Duration.ofSeconds(30);

    private static final Duration RETRY_DELAY = Duration.ofMillis(50);
    private static final ClaimScope WORK = ClaimScope.of(OutboxRow.DEFAULT_ROUTE, OutboxRow.DEFAULT_ROUTE);

    private final List<ReactiveStore> stores;
    private final Map<WorkflowId, ReactiveStore> owner = new ConcurrentHashMap<>();
    private final List<WorkflowId> workflows = new ArrayList<>();
    private final Map<WorkflowId, Queue<OutboxRow>> toSettle = new ConcurrentHashMap<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final List<Disposable> running = new ArrayList<>();
    private Mono<Void> writersDone;

    /** per workflow: the steps whose write was acknowledged */
    final Map<WorkflowId, Set<Long>> acknowledged = new ConcurrentHashMap<>();
    /** per dispatch key: how many settles of it were acknowledged (a fenced settle or a step's) */
    final Map<String, AtomicInteger> settlesAcknowledged = new ConcurrentHashMap<>();
    /** the instant (System.nanoTime) of the latest acknowledged write, of any kind */
    final AtomicLong lastAcknowledgedNanos = new AtomicLong();

    final AtomicInteger failedAttempts = new AtomicInteger();
    final AtomicInteger committedButFailed = new AtomicInteger();
    final AtomicInteger staleClaims = new AtomicInteger();
    final AtomicInteger claimedRows = new AtomicInteger();
    final AtomicInteger steps = new AtomicInteger();
    final List<String> hangs = Collections.synchronizedList(new ArrayList<>());
    final AtomicReference<Throwable> claimStreamEnded = new AtomicReference<>();
    private final AtomicInteger appendsAcked = new AtomicInteger();

    /**
     * @param stores the instances, all on one database
     * @param workflowsPerStore how many workflows each instance writes
     */
    FailoverLoad(List<ReactiveStore> stores, int workflowsPerStore) {
        this.stores = List.copyOf(stores);
        for (ReactiveStore s : stores) {
            for (int i = 0; i < workflowsPerStore; i++) {
                WorkflowId w = WorkflowId.random();
                workflows.add(w);
                owner.put(w, s);
                acknowledged.put(w, ConcurrentHashMap.newKeySet());
                toSettle.put(w, new ConcurrentLinkedQueue<>());
            }
        }
    }

    List<WorkflowId> workflows() {
        return workflows;
    }

    /** Starts the writers and one claim stream per instance. */
    void start() {
        writersDone = Flux.fromIterable(workflows)
                .flatMap(w -> write(w).subscribeOn(Schedulers.parallel()), workflows.size())
                .then()
                .cache();
        running.add(writersDone.subscribe());
        ClaimStreamOptions options =
                ClaimStreamOptions.defaults().withScope(WORK).withMaxBatch(16).withPollInterval(POLL);
        for (ReactiveStore s : stores) {
            running.add(s.claimStream(options)
                    .doOnNext(r -> claimedRows.incrementAndGet())
                    .flatMap(r -> r.ordinal() % 2 == 0 ? settle(s, r) : handOver(r), 8)
                    .subscribe(
                            null,
                            claimStreamEnded::set,
                            () -> claimStreamEnded.set(new IllegalStateException("a claim stream completed"))));
        }
    }

    /** @return acknowledged writes (appends and steps) so far */
    int writesAcknowledged() {
        return appendsAcked.get();
    }

    /** @return acknowledged settles so far */
    int settlesAcknowledged() {
        return settlesAcknowledged.values().stream()
                .mapToInt(AtomicInteger::get)
                .sum();
    }

    /** Stops the writers after their current step; waits (bounded) for them. */
    void stop(Duration bound) {
        stopping.set(true);
        writersDone.block(bound);
    }

    @Override
    public void close() {
        stopping.set(true);
        running.forEach(Disposable::dispose);
    }

    private Mono<Void> handOver(OutboxRow row) {
        toSettle.get(row.workflowId()).add(row);
        return Mono.empty();
    }

    private Mono<Void> settle(ReactiveStore s, OutboxRow row) {
        return bounded("settle " + row.dispatchKey(), s.settle(row, Settlement.complete()))
                .doOnSuccess(v -> settled(List.of(row)))
                .onErrorResume(e -> {
                    if (e instanceof StaleClaimException) {
                        staleClaims.incrementAndGet();
                    }
                    return Mono.empty(); // unacknowledged: the row stays claimed (the reaper's job)
                });
    }

    private void settled(List<OutboxRow> rows) {
        for (OutboxRow r : rows) {
            settlesAcknowledged
                    .computeIfAbsent(r.dispatchKey(), k -> new AtomicInteger())
                    .incrementAndGet();
        }
        lastAcknowledgedNanos.set(System.nanoTime());
    }

    private Mono<Void> write(WorkflowId w) {
        return Flux.<Long, Long>generate(() -> 1L, (step, sink) -> {
                    sink.next(step);
                    return step + 1;
                })
                .takeWhile(step -> !stopping.get())
                .concatMap(step -> attemptStep(w, step, drain(w)), 1)
                .then();
    }

    private List<OutboxRow> drain(WorkflowId w) {
        List<OutboxRow> rows = new ArrayList<>();
        Queue<OutboxRow> q = toSettle.get(w);
        for (OutboxRow r; rows.size() < 4 && (r = q.poll()) != null; ) {
            rows.add(r);
        }
        return rows;
    }

    /** One step, retried until it is known to be committed (or the load stops). */
    private Mono<Void> attemptStep(WorkflowId w, long step, List<OutboxRow> settles) {
        return Mono.defer(() -> {
            ReactiveStore s = owner.get(w);
            Mono<Void> write;
            if (settles.isEmpty() && step % 2 == 1) {
                write = s.appendWithOutbox(w, List.of(WriteLoad.event(w, step)), step - 1, WriteLoad.rows(w, step));
            } else {
                WorkflowStep.Builder b = WorkflowStep.builder(w, step - 1)
                        .append(WriteLoad.event(w, step))
                        .stage(WriteLoad.rows(w, step));
                settles.forEach(b::complete);
                write = s.commitStep(b.build());
            }
            return bounded("step " + w + "#" + step, write)
                    .then(Mono.fromRunnable(() -> {
                        acknowledged.get(w).add(step);
                        appendsAcked.incrementAndGet();
                        if (!settles.isEmpty()) {
                            steps.incrementAndGet();
                        }
                        settled(settles);
                    }))
                    .onErrorResume(e -> {
                        if (e instanceof SequenceConflictException c && c.found() == step) {
                            committedButFailed.incrementAndGet(); // an earlier attempt did commit
                            return Mono.empty();
                        }
                        if (e instanceof StaleClaimException) {
                            // the step wrote nothing; its rows stay claimed: go on without them
                            staleClaims.incrementAndGet();
                            return Mono.delay(RETRY_DELAY).then(attemptStep(w, step, List.of()));
                        }
                        failedAttempts.incrementAndGet();
                        if (stopping.get() || e instanceof WriteLoad.Hang) {
                            return Mono.empty();
                        }
                        return Mono.delay(RETRY_DELAY).then(attemptStep(w, step, settles));
                    })
                    .then();
        });
    }

    private <T> Mono<T> bounded(String what, Mono<T> operation) {
        return operation.timeout(WriteLoad.ATTEMPT_BOUND, Mono.defer(() -> {
            hangs.add(what);
            return Mono.error(new WriteLoad.Hang(what));
        }));
    }
}
