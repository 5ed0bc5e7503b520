package dev.durablestore.r2dbc.blockhound;

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
import dev.durablestore.r2dbc.PostgresServer;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Option;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Runs every kind of store operation from Reactor's non-blocking {@code parallel} threads under
 * BlockHound (installed for the JVM by {@link BlockHoundSession} in the {@code blockhound} Surefire
 * execution), on PostgreSQL and on H2. On PostgreSQL every statement runs on Netty event loops,
 * which BlockHound watches too; on H2 the store moves the (blocking) engine calls to its own threads.
 */
class NonBlockingTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @BeforeEach
    void requireBlockHound() {
        assertThat(BlockHoundSession.installed())
                .as("run with -Ddurablestore.blockhound=true (mvn test does, in the 'blockhound' execution)")
                .isTrue();
    }

    @Test
    void blockhound_catches_a_blocking_call_on_a_parallel_thread() {
        // given BlockHound, when a non-blocking thread waits on a latch (the blocking call under
        // test, not a wait for time to pass), then BlockHound objects
        Mono<Object> sleepOnParallel = Mono.fromCallable(() -> {
                    new java.util.concurrent.CountDownLatch(1).await(1, java.util.concurrent.TimeUnit.MILLISECONDS);
                    return new Object();
                })
                .subscribeOn(Schedulers.parallel());
        assertThatThrownBy(() -> sleepOnParallel.block(TIMEOUT)).hasStackTraceContaining("Blocking call!");
        BlockHoundSession.VIOLATIONS.clear();
    }

    @Test
    void every_store_operation_stays_non_blocking_on_postgresql() {
        String schema =
                "nonblocking_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        exec(PostgresServer.admin(), "CREATE SCHEMA " + schema);
        ConnectionPool pool =
                new ConnectionPool(ConnectionPoolConfiguration.builder(ConnectionFactories.get(PostgresServer.options()
                                .mutate()
                                .option(Option.valueOf("schema"), schema)
                                .build()))
                        .maxSize(8)
                        .build());
        try {
            runWorkload(R2dbcStoreConfig.of(pool).withNotifyChannel(schema));
        } finally {
            pool.disposeLater().block(TIMEOUT);
            exec(PostgresServer.admin(), "DROP SCHEMA " + schema + " CASCADE");
        }
    }

    @Test
    void every_store_operation_stays_non_blocking_on_h2() {
        String name = "nonblocking_" + UUID.randomUUID().toString().replace("-", "");
        ConnectionFactory h2 =
                ConnectionFactories.get("r2dbc:h2:mem:///" + name + "?options=DB_CLOSE_DELAY=-1;MODE=PostgreSQL");
        try {
            runWorkload(R2dbcStoreConfig.of(h2));
        } finally {
            exec(h2, "SHUTDOWN");
        }
    }

    private static void runWorkload(R2dbcStoreConfig config) {
        R2dbcReactiveStore opened = R2dbcReactiveStore.open(config)
                .subscribeOn(Schedulers.parallel())
                .block(TIMEOUT);
        assertThat(opened).isNotNull();
        try (ReactiveStore store = opened) {
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

    private static void exec(ConnectionFactory factory, String sql) {
        Mono.usingWhen(
                        Mono.from(factory.create()),
                        c -> Flux.from(c.createStatement(sql).execute())
                                .concatMap(r -> r.getRowsUpdated())
                                .then(),
                        c -> Mono.from(c.close()))
                .block(TIMEOUT);
    }
}
