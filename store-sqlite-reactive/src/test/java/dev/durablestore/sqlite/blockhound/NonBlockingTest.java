package dev.durablestore.sqlite.blockhound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunId;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Runs every kind of store operation from Reactor's non-blocking {@code parallel} threads, with
 * downstream operators on the store's writer threads (write results) and emit threads (reads),
 * under BlockHound (the {@code blockhound} Surefire execution installs it for the JVM; see
 * {@link BlockHoundSession}). Any JDBC call on a non-blocking thread outside the writer's own
 * statements would fail the operation and be recorded.
 */
class NonBlockingTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @BeforeEach
    void requireBlockHound() {
        assertThat(BlockHoundSession.installed())
                .as("run with -Ddurablestore.blockhound=true (mvn test does, in the 'blockhound' execution)")
                .isTrue();
    }

    @Test
    void blockhound_catches_a_jdbc_call_on_a_parallel_thread() throws Exception {
        // given a plain JDBC connection, when it is used from a non-blocking thread, then BlockHound objects
        Path file = Files.createFile(dir.resolve("raw.db"));
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + file);
                var s = c.createStatement()) {
            Mono<Boolean> jdbcOnParallel = Mono.fromCallable(() -> s.execute("CREATE TABLE t (x INTEGER)"))
                    .subscribeOn(Schedulers.parallel());
            assertThatThrownBy(() -> jdbcOnParallel.block(TIMEOUT)).hasStackTraceContaining("Blocking call!");
        }
        BlockHoundSession.VIOLATIONS.clear();
    }

    @Test
    void blocking_in_a_write_subscriber_is_caught_on_the_writer_thread_that_signals_it() {
        // given a store, and a subscriber of an append that blocks where it is signalled
        try (ReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("w.db")))) {
            WorkflowId w = WorkflowId.random();
            var start = new WorkflowStarted(
                    new EventEnvelope(1, Instant.now(), w),
                    "type",
                    Payload.json("{}"),
                    RunId.random(),
                    null,
                    new PackageVersion("v1"));
            Mono<Void> blockingSubscriber =
                    store.append(w, List.of(start), 0).then(Mono.fromRunnable(NonBlockingTest::blockingCall));

            // when it runs, then BlockHound objects on the writer thread: the writer threads are
            // non-blocking for subscriber code, while their own statements are declared to BlockHound
            assertThatThrownBy(() -> blockingSubscriber.block(TIMEOUT)).hasStackTraceContaining("Blocking call!");
            assertThat(BlockHoundSession.VIOLATIONS).singleElement().asString().contains("on durable-store-writer-");
            // and the store goes on
            assertThat(store.readHead(w).block(TIMEOUT)).isEqualTo(1L);
        } finally {
            BlockHoundSession.VIOLATIONS.clear();
        }
    }

    /** A call BlockHound knows as blocking ({@code Thread.yield}, which waits for nothing): what it must catch. */
    private static void blockingCall() {
        Thread.yield();
    }

    @Test
    void every_store_operation_keeps_jdbc_off_non_blocking_threads() {
        try (ReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("s.db")))) {
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

            Mono<?> workload = Mono.when(
                            store.appendWithOutbox(w, List.of(start), 0, rows),
                            store.scheduleTimer(w, TimerId.named("t"), now))
                    .then(store.append(w, List.of(done), 1))
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
                    .flatMap(row -> store.complete(row.dispatchKey()))
                    .then(store.claim(1))
                    .flatMap(claimed -> store.retry(claimed.get(0).dispatchKey(), 1, now))
                    .then(store.claimScopedExcluding(ClaimScope.of("default", "default"), 5, Set.of()))
                    .flatMap(claimed -> Flux.fromIterable(claimed)
                            .flatMap(r -> store.fail(r.dispatchKey()))
                            .then())
                    .then(store.redriveWorkflow(w, true))
                    .then(store.claimExcluding(5, Set.of()))
                    .then(Mono.when(
                            store.heartbeat(List.of("x")),
                            store.listStaleClaimed(now.plusSeconds(60), 10).then(),
                            store.countInflight("default"),
                            store.countClaimed("default"),
                            store.countClaimedByNamespace(List.of("default")),
                            store.pendingRoutes().then(),
                            store.listUnsettledWorkflowIds().then(),
                            store.rowState(rows.get(0).dispatchKey())))
                    .then(store.rearmStaleClaimed(now.plusSeconds(60), now, 10))
                    .then(store.cancelWorkflowRows(w))
                    .then(store.rearmPending(rows))
                    .then(store.settleCancelled(rows.get(0).dispatchKey()))
                    .then(store.redrive(rows.get(0).dispatchKey(), false))
                    .then(store.pruneSettled(now.plusSeconds(3600), 10))
                    .subscribeOn(Schedulers.parallel());

            workload.block(TIMEOUT);
        }
        assertThat(BlockHoundSession.VIOLATIONS).isEmpty();
    }
}
