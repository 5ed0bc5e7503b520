package dev.durablestore.testsupport.blockhound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RetentionPolicy;
import dev.durablestore.api.RunId;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowStarted;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Base of each backend's {@code NonBlockingTest}, run in the JVM where {@link BlockHoundSession}
 * installed BlockHound: every test first requires BlockHound, one test checks that it catches a
 * blocking call on a Reactor {@code parallel} thread, and {@link #assertEveryOperationStaysNonBlocking}
 * drives every kind of store operation from those threads. A subclass opens its backend's stores
 * and adds the checks only its backend has.
 */
public abstract class NonBlockingTestSupport {

    private final Duration timeout;

    /** @param timeout the bound on every blocking wait of the test, so a hang fails instead of stalling */
    protected NonBlockingTestSupport(Duration timeout) {
        this.timeout = timeout;
    }

    /** @return the bound on every blocking wait of the test */
    protected final Duration timeout() {
        return timeout;
    }

    @BeforeEach
    void requireBlockHound() {
        assertThat(BlockHoundSession.installed())
                .as("run with -Ddurablestore.blockhound=true (mvn test does, in the 'blockhound' execution)")
                .isTrue();
    }

    /** Given BlockHound, when a non-blocking thread waits on a latch (the blocking call under test), then it objects. */
    @Test
    public void blockhound_catches_a_blocking_call_on_a_parallel_thread() {
        Mono<Boolean> waitOnParallel = Mono.fromCallable(() -> {
                    // a wait that is the blocking call under test, not a wait for time to pass
                    return new CountDownLatch(1).await(1, TimeUnit.MILLISECONDS);
                })
                .subscribeOn(Schedulers.parallel());
        assertThatThrownBy(() -> waitOnParallel.block(timeout)).hasStackTraceContaining("Blocking call!");
        BlockHoundSession.clearViolations();
    }

    /**
     * Runs every kind of store operation (appends, a conflicting append, timers, reads, queries,
     * claims and claim streams, settles, redrives, counts, rearms, pruning) from Reactor's
     * non-blocking {@code parallel} threads, closes the store, then asserts that BlockHound recorded
     * no blocking call on a non-blocking thread, closing included.
     *
     * @param store a store on an empty database; closed here
     */
    protected final void assertEveryOperationStaysNonBlocking(ReactiveStore store) {
        try (store) {
            everyOperation(store).subscribeOn(Schedulers.parallel()).block(timeout);
        }
        assertThat(BlockHoundSession.violations()).isEmpty();
    }

    private static Mono<?> everyOperation(ReactiveStore store) {
        WorkflowId w = WorkflowId.random();
        Instant now = Instant.now();
        var start = new WorkflowStarted(
                new EventEnvelope(1, now, w),
                "type",
                Payload.json("{}"),
                RunId.random(),
                null,
                new PackageVersion("v1"));
        var done = new WorkflowCompleted(new EventEnvelope(2, now, w), Payload.json("1"));
        List<OutboxRow> rows = List.of(
                OutboxRow.pending(w, 1, "a", Payload.json("{}"), now),
                OutboxRow.pending(w, 2, "b", Payload.json("{}"), now),
                OutboxRow.pending(w, 3, "c", Payload.json("{}"), now));

        return Mono.when(
                        store.appendWithOutbox(w, List.of(start), 0, rows),
                        store.scheduleTimer(w, TimerId.named("t"), now))
                .then(store.append(w, List.of(done), 1))
                .then(store.append(w, List.of(done), 1).onErrorResume(e -> Mono.empty())) // a conflict
                .then(Mono.when(
                        store.readHistory(w).then(),
                        store.readHistoryFrom(w, 2).then(),
                        store.readHead(w),
                        store.listWorkflowIds().then(),
                        store.listActive().then(),
                        store.listPaused().then(),
                        store.query(WorkflowFilter.all()).then(),
                        store.readRunChain(w),
                        store.validateStoredEvents(),
                        store.expiredTimers(now).then()))
                .then(store.claimStream(ClaimStreamOptions.defaults().withPollInterval(Duration.ofMillis(20)))
                        .take(1)
                        .next())
                .flatMap(row -> store.complete(row))
                .then(store.claim(ClaimRequest.of(1)))
                .flatMap(claimed -> store.settleKeys(List.of(claimed.get(0).dispatchKey()), Settlement.retryAt(1, now)))
                .then(store.claim(ClaimRequest.of(5).withScope(ClaimScope.of("default", "default"))))
                .flatMap(claimed -> Flux.fromIterable(claimed)
                        .flatMap(r -> store.settle(r, Settlement.fail()))
                        .then())
                .then(store.redriveWorkflow(w, true))
                .then(store.claim(ClaimRequest.of(5).withHeldWorkflows(Set.of(WorkflowId.random()))))
                .flatMap(claimed -> Mono.when(
                                store.heartbeat(claimed),
                                store.listStaleClaimed(now.plusSeconds(60), 10).then(),
                                store.countInflight("default"),
                                store.countClaimed("default"),
                                store.countClaimedByNamespace(List.of("default")),
                                store.pendingRoutes().then(),
                                store.listUnsettledWorkflowIds().then(),
                                store.rowState(rows.get(0).dispatchKey()))
                        .then(
                                claimed.isEmpty()
                                        ? Mono.empty()
                                        : store.settle(claimed.get(0), Settlement.retryAfter(1, Duration.ZERO))))
                .then(store.rearmStaleClaimed(now.plusSeconds(60), now, 10))
                .then(store.cancelWorkflowRows(w))
                .then(store.rearmPending(rows))
                .then(store.settleKeys(List.of(rows.get(0).dispatchKey()), Settlement.cancel()))
                .then(store.redrive(rows.get(0).dispatchKey(), false))
                .then(store.pruneSettled(now.plusSeconds(3600), 10))
                // retention (D5–D9): the closed workflow, its rows settled, is walked, counted and deleted
                .then(store.cancelWorkflowRows(w))
                .then(store.retentionBacklog(RetentionPolicy.closedFor(Duration.ofSeconds(1)), now.plusSeconds(3600)))
                .then(store.sweepRetention(
                        RetentionPolicy.closedFor(Duration.ofSeconds(1)).withSettledRows(Duration.ofSeconds(1)),
                        now.plusSeconds(3600),
                        10,
                        null))
                .then(store.purgeWorkflow(w));
    }
}
