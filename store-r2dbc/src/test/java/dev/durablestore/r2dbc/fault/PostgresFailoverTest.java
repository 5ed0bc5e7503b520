package dev.durablestore.r2dbc.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.TransientBackendException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactoryOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.util.retry.Retry;

/**
 * The PostgreSQL backend when its primary dies and a synchronous streaming standby is promoted
 * (issue 43, item 3): two embedded servers ({@link StandbyPair}), two store instances configured
 * with both hosts (r2dbc-postgresql's failover URL, {@code targetServerType=primary}), each on an
 * r2dbc-pool pool with default settings, under load ({@link FailoverLoad}: appends, steps that
 * complete claimed rows, claim streams, fenced settles). Every process of the primary is killed
 * ({@code SIGKILL}) and the standby promoted. The test checks, per trial, that
 *
 * <ol>
 *   <li>the same store instances, never reopened, write again, and their claim streams deliver again;
 *   <li>every acknowledged write (append, step, settle) is on the new primary, and no acknowledged
 *       write is lost;
 *   <li>every unacknowledged append or step is whole or absent: its event and both its rows, or none;
 *   <li>no row's settle was acknowledged twice (the claim fence held);
 *   <li>each instance's idle claim stream (30 s poll interval) is woken by a row staged on the other
 *       instance within {@link #WAKE_BOUND} of the kill: the listener reconnected to the new primary;
 *   <li>each pool hands out only connections to the new primary once writes succeed again: every
 *       connection it has then answers from the new primary's port;
 *   <li>no operation hangs (each ends within {@link WriteLoad#ATTEMPT_BOUND}).
 * </ol>
 *
 * <p>The figures of each trial and their summary are printed as {@code RESULT failover …} lines.
 * The number of trials is {@value #DEFAULT_TRIALS}, or {@code -Ddurablestore.failover.trials=N}.
 */
class PostgresFailoverTest {

    private static final int DEFAULT_TRIALS = 3;
    private static final int TRIALS = Integer.getInteger("durablestore.failover.trials", DEFAULT_TRIALS);
    private static final Duration BOUND = Duration.ofSeconds(30);
    /** The longest an idle stream may wait for a wake-up after the kill: a third of its poll interval. */
    private static final Duration WAKE_BOUND = FailoverLoad.POLL.dividedBy(3);

    private static final int WORKFLOWS_PER_STORE = 6;
    private static final int POOL_SIZE = 6;
    private static final List<String> NODES = List.of("failover-a", "failover-b");

    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
        closeAfter.clear();
    }

    /** What one trial measured. */
    record Trial(
            long promotedMillis,
            long writesAgainMillis,
            long writesAfterPromotionMillis,
            long wakeUpsAgainMillis,
            int lost,
            int checked,
            int failedAttempts,
            int committedButFailed) {}

    @Test
    void X13_the_primary_killed_under_load_on_two_instances_loses_no_acknowledged_write_and_both_serve_again() {
        List<Trial> trials = new ArrayList<>();
        for (int t = 1; t <= TRIALS; t++) {
            Trial trial = trial();
            trials.add(trial);
            report(
                    "trial=%d promoted_ms=%d writes_again_ms=%d (%d after the promotion) wakeups_again_ms=%d "
                            + "acknowledged_checked=%d acknowledged_lost=%d failed_attempts=%d committed_but_failed=%d",
                    t,
                    trial.promotedMillis(),
                    trial.writesAgainMillis(),
                    trial.writesAfterPromotionMillis(),
                    trial.wakeUpsAgainMillis(),
                    trial.checked(),
                    trial.lost(),
                    trial.failedAttempts(),
                    trial.committedButFailed());
            try {
                closeAll();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        report(
                "summary trials=%d promoted_s median=%.2f max=%.2f writes_again_s median=%.2f max=%.2f "
                        + "wakeups_again_s median=%.2f max=%.2f acknowledged_lost=%d acknowledged_checked=%d",
                trials.size(),
                seconds(median(trials, Trial::promotedMillis)),
                seconds(max(trials, Trial::promotedMillis)),
                seconds(median(trials, Trial::writesAgainMillis)),
                seconds(max(trials, Trial::writesAgainMillis)),
                seconds(median(trials, Trial::wakeUpsAgainMillis)),
                seconds(max(trials, Trial::wakeUpsAgainMillis)),
                trials.stream().mapToInt(Trial::lost).sum(),
                trials.stream().mapToInt(Trial::checked).sum());
    }

    @Test
    void X13_a_store_that_reaches_a_read_only_standby_gets_a_transient_error_and_serves_again_once_it_is_promoted() {
        // given a primary with its standby, and a store that reaches the primary through a relay (as
        // through a name or a virtual address the operator moves), with an idle claim stream
        StandbyPair pair = StandbyPair.start();
        closeAfter.add(pair);
        TcpProxy relay = new TcpProxy(pair.primaryPort());
        closeAfter.add(relay);
        String node = "failover-relayed";
        ReactiveStore s = openStore(pool(RestartableServer.options(relay.port(), node)));
        WorkflowId w = WorkflowId.random();
        s.appendWithOutbox(w, List.of(WriteLoad.event(w, 1)), 0, WriteLoad.rows(w, 1))
                .block(BOUND);
        Map<String, Long> delivered = new ConcurrentHashMap<>();
        closeAfter.add(s.claimStream(ClaimStreamOptions.defaults()
                        .withScope(ClaimScope.of("probe", node))
                        .withPollInterval(FailoverLoad.POLL))
                .subscribe(r -> delivered.put(r.dispatchKey(), System.nanoTime()))::dispose);

        // when the relay is moved to the standby
        relay.moveTo(pair.standbyPort());

        // then every write fails with a transient error saying the server is read-only, a standby
        OutboxRow staged = WriteLoad.rows(w, 2).get(0);
        List<Mono<?>> writes = List.of(
                s.append(w, List.of(WriteLoad.event(w, 2)), 1),
                s.appendOutboxBatch(List.of(staged)),
                s.claim(ClaimRequest.of(10)),
                s.settleKeys(List.of(OutboxRow.dispatchKey(w, 2)), Settlement.complete()),
                s.commitStep(
                        WorkflowStep.builder(w, 1).append(WriteLoad.event(w, 2)).build()));
        for (Mono<?> write : writes) {
            // (a pooled connection the move closed may fail one attempt first, as connection lost)
            StepVerifier.create(write.retryWhen(Retry.fixedDelay(POOL_SIZE, Duration.ofMillis(50))
                            .filter(e -> !String.valueOf(e.getMessage()).contains("[25006]"))))
                    .expectErrorSatisfies(PostgresFailoverTest::assertReadOnly)
                    .verify(BOUND);
        }
        // while reads are served
        StepVerifier.create(s.readHead(w)).expectNextCount(1).verifyComplete();
        // and a store opened on the standby fails to open with the same error, writing nothing
        StepVerifier.create(R2dbcStoreConfig.of(pool(RestartableServer.options(pair.standbyPort(), "failover-open")))
                        .open())
                .expectErrorSatisfies(PostgresFailoverTest::assertReadOnly)
                .verify(BOUND);

        // when the primary dies and the standby is promoted
        pair.killPrimary();
        pair.promote();
        long promoted = System.nanoTime();

        // then the same store writes again, without being reopened
        List<Throwable> failures = new ArrayList<>();
        StepVerifier.create(s.append(w, List.of(WriteLoad.event(w, 2)), 1)
                        .doOnError(failures::add)
                        .retryWhen(Retry.fixedDelay(100, Duration.ofMillis(50))
                                .filter(TransientBackendException.class::isInstance)))
                .verifyComplete();
        long writesAgain = System.nanoTime();
        StepVerifier.create(s.readHistory(w).count()).expectNext(2L).verifyComplete();
        // and its idle stream is woken by a row another store stages, long before its poll interval
        ReactiveStore other = openStore(pool(pair.failoverOptions("failover-other")));
        OutboxRow probe = OutboxRow.pending(WorkflowId.random(), 0, "probe", Payload.json("{}"), Instant.now())
                .withRoute("probe", node, null);
        other.appendOutboxBatch(List.of(probe)).block(BOUND);
        Await.until("the idle stream delivered the row", () -> delivered.containsKey(probe.dispatchKey()));
        long wokenAfter = delivered.get(probe.dispatchKey()) - promoted;
        assertThat(Duration.ofNanos(wokenAfter))
                .as("from the promotion to the wake-up")
                .isLessThan(WAKE_BOUND);
        report(
                "read_only_standby writes_again_ms=%d (after %d transient failures) wakeup_ms=%d (from the promotion)",
                millis(writesAgain - promoted), failures.size(), millis(wokenAfter));
    }

    private static void assertReadOnly(Throwable e) {
        assertThat(e)
                .isInstanceOf(TransientBackendException.class)
                .hasMessageContaining("read-only")
                .hasMessageContaining("standby")
                .hasMessageContaining("25006");
    }

    private Trial trial() {
        // given a primary with a synchronous standby, and two store instances configured with both
        StandbyPair pair = StandbyPair.start();
        closeAfter.add(pair);
        List<ConnectionPool> pools = new ArrayList<>();
        List<ReactiveStore> stores = new ArrayList<>();
        for (String node : NODES) {
            ConnectionPool pool = pool(pair.failoverOptions(node));
            pools.add(pool);
            stores.add(openStore(pool));
        }
        // with an idle claim stream each, on a route of its own, polling every 30 s
        Map<String, Long> probesDelivered = new ConcurrentHashMap<>();
        for (int i = 0; i < NODES.size(); i++) {
            closeAfter.add(stores.get(i)
                    .claimStream(ClaimStreamOptions.defaults()
                            .withScope(ClaimScope.of("probe", NODES.get(i)))
                            .withPollInterval(FailoverLoad.POLL))
                    .subscribe(r -> probesDelivered.put(r.dispatchKey(), System.nanoTime()))::dispose);
        }
        // and under load
        FailoverLoad load = new FailoverLoad(stores, WORKFLOWS_PER_STORE);
        closeAfter.add(load);
        load.start();
        int workflows = load.workflows().size();
        Await.until(
                "the load runs: 5 writes per workflow, 20 settles and 2 steps that settle acknowledged",
                () -> load.writesAcknowledged() >= 5 * workflows
                        && load.settlesAcknowledged() >= 20
                        && load.steps.get() >= 2);
        // and each idle stream woken by a row the other instance stages
        long before = System.nanoTime();
        awaitProbes(stores, probesDelivered, before);

        // when every process of the primary is killed and the standby promoted
        long killStart = System.nanoTime();
        pair.killPrimary();
        long killed = System.nanoTime();
        int ackedAtKill = load.writesAcknowledged();
        pair.promote();
        long promoted = System.nanoTime();

        // then the same instances write again
        Await.until("an acknowledged write after the kill", () -> load.lastAcknowledgedNanos.get() > killed);
        long writesAgain = load.lastAcknowledgedNanos.get();
        // and the idle stream of each is woken by a row staged on the other, long before its poll
        long wakeUpsAgain = awaitProbes(stores, probesDelivered, killStart);
        assertThat(Duration.ofNanos(wakeUpsAgain - killStart))
                .as("from the kill to the wake-up of every idle stream")
                .isLessThan(WAKE_BOUND);
        // and every writer, both claim streams and the steps go on
        int settledBefore = load.settlesAcknowledged();
        int claimedBefore = load.claimedRows.get();
        int stepsBefore = load.steps.get();
        Await.until(
                "every writer and both claim streams make progress again",
                () -> load.writesAcknowledged() >= ackedAtKill + 3 * workflows
                        && load.settlesAcknowledged() >= settledBefore + 20
                        && load.claimedRows.get() > claimedBefore
                        && load.steps.get() > stepsBefore);
        // and every connection each pool hands out is one to the new primary
        for (ConnectionPool pool : pools) {
            assertEveryPooledConnectionIsOn(pool, pair.standbyPort());
        }
        load.stop(BOUND);
        assertThat(load.hangs)
                .as("operations that did not end within %s", WriteLoad.ATTEMPT_BOUND)
                .isEmpty();
        assertThat(load.claimStreamEnded.get()).as("the claim streams' end").isNull();

        // and the new primary holds every acknowledged write, every unacknowledged one whole or not at all
        int[] ledger = assertLedgerHolds(load, pair.standbyPort());
        return new Trial(
                millis(promoted - killStart),
                millis(writesAgain - killStart),
                millis(writesAgain - promoted),
                millis(wakeUpsAgain - killStart),
                ledger[1],
                ledger[0],
                load.failedAttempts.get(),
                load.committedButFailed.get());
    }

    /**
     * Stages, from each instance, a row on the idle route of the next one (retrying while the
     * database is away) and waits until each idle stream has delivered its row.
     *
     * @return when the last of them was delivered ({@link System#nanoTime()})
     */
    private static long awaitProbes(List<ReactiveStore> stores, Map<String, Long> delivered, long since) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < stores.size(); i++) {
            WorkflowId w = WorkflowId.random();
            OutboxRow probe = OutboxRow.pending(w, 0, "probe", Payload.json("{}"), Instant.now())
                    .withRoute("probe", NODES.get((i + 1) % NODES.size()), null);
            keys.add(probe.dispatchKey());
            stores.get(i)
                    .appendOutboxBatch(List.of(probe))
                    .retryWhen(Retry.fixedDelay(Long.MAX_VALUE, Duration.ofMillis(50)))
                    .block(BOUND);
        }
        Await.until(
                "every idle stream delivered the row staged on the other instance",
                () -> delivered.keySet().containsAll(keys));
        long last = since;
        for (String k : keys) {
            last = Math.max(last, delivered.get(k));
        }
        return last;
    }

    /**
     * Takes as many connections from the pool as it may hold at once and asks each which server it is
     * on: none may be a connection to the dead primary, none may fail.
     */
    private static void assertEveryPooledConnectionIsOn(ConnectionPool pool, int port) {
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < POOL_SIZE; i++) {
                held.add(Mono.from(pool.create()).block(BOUND));
            }
            for (Connection c : held) {
                Object[] answer = Flux.from(c.createStatement("SELECT inet_server_port(), pg_is_in_recovery()")
                                .execute())
                        .concatMap(r -> r.map((row, meta) -> new Object[] {row.get(0), row.get(1)}))
                        .blockLast(BOUND);
                assertThat(answer)
                        .as("a pooled connection's server port and recovery state")
                        .containsExactly(port, false);
            }
        } finally {
            held.forEach(c -> Mono.from(c.close()).block(BOUND));
        }
    }

    /**
     * Reads the tables on the new primary, outside the stores, and checks the ledger.
     *
     * @return the acknowledged writes and settles checked, and how many of them are missing
     */
    private static int[] assertLedgerHolds(FailoverLoad load, int port) {
        Map<WorkflowId, Set<Long>> appended = new HashMap<>();
        load.acknowledged.forEach((w, steps) -> appended.put(w, new HashSet<>(steps)));
        Map<String, Integer> settles = new HashMap<>();
        load.settlesAcknowledged.forEach((k, n) -> settles.put(k, n.get()));
        Map<String, Set<Long>> seqs = new HashMap<>();
        for (Object[] r : StandbyPair.sql(port, "SELECT workflow_id, seq FROM events")) {
            seqs.computeIfAbsent((String) r[0], k -> new TreeSet<>()).add((Long) r[1]);
        }
        Map<String, Set<Long>> ordinals = new HashMap<>();
        Map<String, String> status = new HashMap<>();
        for (Object[] r : StandbyPair.sql(port, "SELECT workflow_id, ordinal, status, dispatch_key FROM outbox")) {
            ordinals.computeIfAbsent((String) r[0], k -> new TreeSet<>()).add((Long) r[1]);
            status.put((String) r[3], (String) r[2]);
        }
        int checked = 0;
        int lost = 0;
        for (WorkflowId w : load.workflows()) {
            Set<Long> events = seqs.getOrDefault(w.toString(), Set.of());
            Set<Long> acked = appended.get(w);
            checked += acked.size();
            lost += (int) acked.stream().filter(k -> !events.contains(k)).count();
        }
        for (Map.Entry<String, Integer> e : settles.entrySet()) {
            checked++;
            if (!"done".equals(status.get(e.getKey()))) {
                lost++;
            }
        }
        // the figures first, then the assertions that name what is wrong
        for (WorkflowId w : load.workflows()) {
            Ledger.assertWorkflowHolds(
                    w,
                    seqs.getOrDefault(w.toString(), Set.of()),
                    ordinals.getOrDefault(w.toString(), Set.of()),
                    appended.get(w));
        }
        settles.forEach((key, n) -> {
            assertThat(n).as("acknowledged settles of %s", key).isEqualTo(1);
            assertThat(status.get(key)).as("acknowledged settle of %s", key).isEqualTo("done");
        });
        assertThat(lost).as("acknowledged writes lost").isZero();
        return new int[] {checked, lost};
    }

    private ConnectionPool pool(ConnectionFactoryOptions options) {
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(ConnectionFactories.get(options))
                .initialSize(0)
                .maxSize(POOL_SIZE)
                .build());
        closeAfter.add(() -> pool.disposeLater().block(BOUND));
        return pool;
    }

    private R2dbcReactiveStore openStore(ConnectionPool pool) {
        R2dbcReactiveStore store = R2dbcStoreConfig.of(pool).open().block(BOUND);
        closeAfter.add(store::close);
        return store;
    }

    private static long millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }

    private static double seconds(long millis) {
        return millis / 1000.0;
    }

    private static long median(List<Trial> trials, ToLongFunction<Trial> figure) {
        long[] sorted = trials.stream().mapToLong(figure).sorted().toArray();
        return sorted[sorted.length / 2];
    }

    private static long max(List<Trial> trials, ToLongFunction<Trial> figure) {
        return trials.stream().mapToLong(figure).max().orElseThrow();
    }

    /** The figures of a run, on the test's standard output (the surefire report keeps them). */
    private static void report(String format, Object... args) {
        System.out.printf("RESULT failover " + format + "%n", args);
    }
}
