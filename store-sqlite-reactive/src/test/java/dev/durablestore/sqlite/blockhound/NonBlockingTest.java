package dev.durablestore.sqlite.blockhound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.testsupport.blockhound.BlockHoundSession;
import dev.durablestore.testsupport.blockhound.NonBlockingTestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Runs every kind of store operation from Reactor's non-blocking {@code parallel} threads, with
 * downstream operators on the store's writer threads (write results) and emit threads (reads),
 * under BlockHound (the {@code blockhound} Surefire execution installs it for the JVM; see
 * {@link BlockHoundSession}). Any JDBC call on a non-blocking thread outside the writer's own
 * statements would fail the operation and be recorded. The workload and the latch check are
 * {@link NonBlockingTestSupport}'s; the JDBC and writer-thread checks are SQLite's own.
 */
class NonBlockingTest extends NonBlockingTestSupport {

    @TempDir
    Path dir;

    NonBlockingTest() {
        super(Duration.ofSeconds(30));
    }

    @Test
    void blockhound_catches_a_jdbc_call_on_a_parallel_thread() throws Exception {
        // given a plain JDBC connection, when it is used from a non-blocking thread, then BlockHound objects
        Path file = Files.createFile(dir.resolve("raw.db"));
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + file);
                var s = c.createStatement()) {
            Mono<Boolean> jdbcOnParallel = Mono.fromCallable(() -> s.execute("CREATE TABLE t (x INTEGER)"))
                    .subscribeOn(Schedulers.parallel());
            assertThatThrownBy(() -> jdbcOnParallel.block(timeout())).hasStackTraceContaining("Blocking call!");
        }
        BlockHoundSession.clearViolations();
    }

    @Test
    void blocking_in_a_write_subscriber_is_caught_on_the_writer_thread_that_signals_it() {
        // given a store, and a subscriber of an append that blocks where it is signalled
        try (ReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("w.db")))) {
            WorkflowId w = WorkflowId.random();
            Event start = started(w);
            Mono<Void> blockingSubscriber =
                    store.append(w, List.of(start), 0).then(Mono.fromRunnable(NonBlockingTest::blockingCall));

            // when it runs, then BlockHound objects on the writer thread: the writer threads are
            // non-blocking for subscriber code, while their own statements are declared to BlockHound
            assertThatThrownBy(() -> blockingSubscriber.block(timeout())).hasStackTraceContaining("Blocking call!");
            assertThat(BlockHoundSession.violations())
                    .singleElement()
                    .asString()
                    .contains("on durable-store-writer-");
            // and the store goes on
            assertThat(store.readHead(w).block(timeout())).isEqualTo(1L);
        } finally {
            BlockHoundSession.clearViolations();
        }
    }

    private static Event started(WorkflowId w) {
        return new WorkflowStarted(
                new EventEnvelope(1, Instant.now(), w),
                "type",
                Payload.json("{}"),
                RunId.random(),
                null,
                new PackageVersion("v1"));
    }

    /** A call BlockHound knows as blocking ({@code Thread.yield}, which waits for nothing): what it must catch. */
    private static void blockingCall() {
        Thread.yield();
    }

    @Test
    void S30_a_backup_subscribed_on_a_non_blocking_thread_copies_off_it_and_signals_on_the_emit_threads() {
        // given a store with one append, and a backup subscribed from a parallel thread
        try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("b.db")))) {
            WorkflowId w = WorkflowId.random();
            Event start = started(w);
            store.append(w, List.of(start), 0).block(timeout());

            // when it runs
            String signalledOn = store.backup(dir.resolve("b-copy.db"))
                    .subscribeOn(Schedulers.parallel())
                    .map(result -> Thread.currentThread().getName())
                    .block(timeout());

            // then its file and JDBC work ran on the store's backup thread, not on the caller's, and
            // its result came on an emit thread
            assertThat(signalledOn).startsWith("durable-store-emit-");
            assertThat(dir.resolve("b-copy.db")).exists();
        }
        assertThat(BlockHoundSession.violations()).isEmpty();
    }

    @Test
    void every_store_operation_keeps_jdbc_off_non_blocking_threads() {
        assertEveryOperationStaysNonBlocking(SqliteReactiveStore.open(SqliteStoreConfig.of(dir.resolve("s.db"))));
    }
}
