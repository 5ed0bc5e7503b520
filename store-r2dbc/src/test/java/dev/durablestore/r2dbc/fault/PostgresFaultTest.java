package dev.durablestore.r2dbc.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.TransientBackendException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Option;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.util.retry.Retry;

/**
 * The PostgreSQL backend when the database goes away below it (X7, X8, O52): the server restarted
 * under load, sessions terminated with {@code pg_terminate_backend} (one mid-transaction; all of a
 * store's, its {@code LISTEN} included), the network between store and server cut (connections
 * reset) or silent (bytes held) for a few seconds under load. The test checks that
 *
 * <ol>
 *   <li>every acknowledged write (append with outbox rows, settle) is there afterwards;
 *   <li>every unacknowledged append is all or nothing: its event and both its rows, or none of them;
 *   <li>every operation ends, with a value or a {@link BackendException}, while the server is away
 *       (a {@link TransientBackendException}: the failure passes once the server is back)
 *       (each is bounded by {@link WriteLoad#ATTEMPT_BOUND}; one that is not counts as a hang); on
 *       a network that goes silent instead (packets held, nothing reset) operations end with the
 *       store's operation timeout ({@link R2dbcStoreConfig#operationTimeout}, 1 s here);
 *   <li>the same store instance, never reopened, serves again once the server is back, and its claim
 *       stream delivers again without being resubscribed.
 * </ol>
 *
 * <p>The class runs its own embedded PostgreSQL ({@link RestartableServer}), so stopping it never
 * disturbs the other test classes. The store reaches it through an r2dbc-pool pool with default
 * settings; verification reads the tables over a plain connection, outside the store.
 */
class PostgresFaultTest {

    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final int WORKFLOWS = 12;
    /** How long the server stays away at least (a few seconds: many failed attempts per writer). */
    private static final Duration OUTAGE = Duration.ofSeconds(3);
    /** The operation timeout of the store in the silent-network test: well inside {@link #OUTAGE}. */
    private static final Duration SILENCE_TIMEOUT = Duration.ofSeconds(1);

    private static RestartableServer server;
    private static ConnectionFactory admin;

    private String schema;
    private TcpProxy proxy;
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = RestartableServer.start();
        admin = ConnectionFactories.get(RestartableServer.options(server.port(), "fault-admin"));
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void newSchema() {
        schema = "fault_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        sql("CREATE SCHEMA " + schema);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
        if (proxy != null) {
            proxy.close();
        }
        server.ensureRunning();
        sql("DROP SCHEMA " + schema + " CASCADE");
    }

    // ------------------------------------------------------------------ (a) the server restarted

    @Test
    void X8_O52_a_server_restarted_under_load_loses_no_acknowledged_write_and_the_same_store_serves_again() {
        // given a store directly on the server
        ReactiveStore s = openStore(server.port(), "fault-store");

        // when, under load, the server is stopped (fast shutdown) and, once every writer saw its writes
        // fail, started again
        // then the same store serves again and nothing acknowledged is lost
        survivesOutage(s, server::stop, server::startAgain);
    }

    // ------------------------------------------------------------------ (b) sessions terminated

    @Test
    void X8_an_append_whose_session_is_terminated_mid_transaction_fails_whole_and_the_store_serves_again() {
        // given a store, and a plain session holding a lock that stops inserts into the outbox
        ReactiveStore s = openStore(server.port(), "fault-store");
        WorkflowId w = WorkflowId.random();
        Connection locker = Mono.from(admin.create()).block(BOUND);
        closeAfter.add(() -> Mono.from(locker.close()).block(BOUND));
        Mono.from(locker.beginTransaction()).block(BOUND);
        Flux.from(locker.createStatement("LOCK TABLE " + schema + ".outbox IN EXCLUSIVE MODE")
                        .execute())
                .flatMap(r -> r.getRowsUpdated())
                .blockLast(BOUND);

        // when an append with two rows has written its event and waits to insert its rows,
        // and its session is terminated from another plain session
        StepVerifier.FirstStep<Void> append =
                StepVerifier.create(s.appendWithOutbox(w, List.of(WriteLoad.event(w, 1)), 0, WriteLoad.rows(w, 1)));
        StepVerifier.Step<Void> expectation = append.then(() -> {
            long pid = awaitStorePidWaitingForLock();
            assertThat(sql("SELECT pg_terminate_backend(" + pid + ")").get(0)[0])
                    .isEqualTo(Boolean.TRUE);
        });
        Instant killed = Instant.now();

        // then the append fails with a clear error, without waiting for the lock holder
        expectation
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(BackendException.class)
                        .hasMessageContaining("appendWithOutbox failed"))
                .verify(WriteLoad.ATTEMPT_BOUND);
        Duration toError = Duration.between(killed, Instant.now());
        Mono.from(locker.rollbackTransaction()).block(BOUND);

        // and nothing of it is stored: no event, no row
        assertThat(sql("SELECT count(*) FROM " + schema + ".events WHERE workflow_id = '" + w + "'")
                        .get(0)[0])
                .isEqualTo(0L);
        assertThat(sql("SELECT count(*) FROM " + schema + ".outbox WHERE workflow_id = '" + w + "'")
                        .get(0)[0])
                .isEqualTo(0L);

        // and the same store appends it now, the pool having replaced the dead connection
        StepVerifier.create(s.appendWithOutbox(w, List.of(WriteLoad.event(w, 1)), 0, WriteLoad.rows(w, 1)))
                .verifyComplete();
        StepVerifier.create(s.readHistory(w).count()).expectNext(1L).verifyComplete();
        StepVerifier.create(s.claim(ClaimRequest.of(10)))
                .assertNext(rows -> assertThat(rows).hasSize(2))
                .verifyComplete();
        report("terminated mid-transaction: the append failed %d ms after pg_terminate_backend", toError.toMillis());
    }

    @Test
    void O52_terminated_listen_and_pool_sessions_are_replaced_without_reopening_the_store() {
        // given a store with an idle hourly claim stream and warm pool connections, and a second
        // store on the same schema and channel, as another node
        ReactiveStore s = openStore(server.port(), "fault-store");
        ReactiveStore other = openStore(server.port(), "fault-other");
        WorkflowId w = WorkflowId.random();
        Flux.range(0, 8).flatMap(i -> s.readHead(w)).blockLast(BOUND);
        Await.until(
                "the store listens", () -> !storePids("query LIKE 'LISTEN%'").isEmpty());
        ClaimStreamOptions hourly = ClaimStreamOptions.defaults().withPollInterval(Duration.ofHours(1));
        OutboxRow row = OutboxRow.pending(w, 0, "work", Payload.json("{}"), Instant.now());

        CompletableFuture<OutboxRow> claimed = s.claimStream(hourly).next().toFuture();

        // when every session of the store is terminated (its LISTEN and its idle pool connections)
        List<Long> pids = storePids("true");
        assertThat(pids).as("the store's sessions").hasSizeGreaterThanOrEqualTo(2);
        pids.forEach(pid -> sql("SELECT pg_terminate_backend(" + pid + ")"));

        // then the same store serves again without being reopened
        Instant before = Instant.now();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        StepVerifier.create(s.append(w, List.of(WriteLoad.event(w, 1)), 0)
                        .doOnError(failures::add)
                        .retryWhen(Retry.fixedDelay(50, Duration.ofMillis(100))))
                .expectComplete()
                .verify(BOUND);
        Duration toServe = Duration.between(before, Instant.now());
        assertThat(failures)
                .as("failures on connections terminated while idle in the pool")
                .allSatisfy(e -> assertThat(e).isInstanceOf(TransientBackendException.class));

        // and it listens again, so a row staged on the other node wakes the idle stream, which survived
        Await.until(
                "the store listens again",
                () -> !storePids("query LIKE 'LISTEN%'").isEmpty());
        Duration toListen = Duration.between(before, Instant.now());
        assertThat(claimed).as("the idle stream before anything was staged").isNotDone();
        other.appendOutboxBatch(List.of(row)).block(BOUND);
        StepVerifier.create(Mono.fromFuture(claimed))
                .assertNext(r -> assertThat(r.dispatchKey()).isEqualTo(row.dispatchKey()))
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        report(
                "terminated %d sessions of the store; it appended again after %d ms (%d failed attempts first) "
                        + "and listened again after %d ms",
                pids.size(), toServe.toMillis(), failures.size(), toListen.toMillis());
        failures.forEach(e -> report("  failed first with: %s", e.getMessage()));
        StepVerifier.create(s.readHistory(w).count()).expectNext(1L).verifyComplete();
    }

    // ------------------------------------------------------------------ (c) the network gone

    @Test
    void X8_O52_a_network_cut_for_seconds_loses_no_acknowledged_write_and_the_same_store_serves_again() {
        // given a store that reaches the server through a loopback relay
        proxy = new TcpProxy(server.port());
        ReactiveStore s = openStore(proxy.port(), "fault-store");

        // when, under load, the relay drops every connection and refuses new ones until every writer
        // saw its writes fail, then relays again
        // then the same store serves again and nothing acknowledged is lost
        survivesOutage(s, proxy::cut, proxy::restore);
    }

    @Test
    void X8_O52_a_network_silent_for_seconds_times_operations_out_and_the_same_store_serves_again() {
        // given a store whose operations time out after 1 s, reaching the server through a loopback relay
        proxy = new TcpProxy(server.port());
        ReactiveStore s = openStore(proxy.port(), "fault-store", SILENCE_TIMEOUT);

        // when, under load, the relay holds every byte and every new connection (no reset) until every
        // writer saw its writes fail, then relays again
        // then meanwhile operations end with BackendException (their timeout), and once the network is
        // back nothing acknowledged is lost and the same store goes on
        survivesOutage(s, proxy::stall, proxy::resume);
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Puts {@code s} under load, breaks its way to the server, keeps it broken until every writer saw a
     * failure (and single operations failed clearly, for at least {@link #OUTAGE}), repairs it, and
     * checks that the same store serves again with nothing acknowledged lost.
     */
    private void survivesOutage(ReactiveStore s, Runnable breakIt, Runnable repair) {
        WriteLoad load = startLoad(s);
        Instant down = Instant.now();
        breakIt.run();
        Duration outage = awaitFailuresDuringOutage(s, load, down);
        repair.run();
        assertRecovered(load, outage, Instant.now());
    }

    /** @return the backend pids of the store under test ({@code fault-store}) matching a predicate */
    private List<Long> storePids(String predicate) {
        List<Long> pids = new ArrayList<>();
        for (Object[] r :
                sql("SELECT pid FROM pg_stat_activity WHERE application_name = 'fault-store' AND " + predicate)) {
            pids.add(((Number) r[0]).longValue());
        }
        return pids;
    }

    /** @return the pid of the store's session once it waits for a lock */
    private long awaitStorePidWaitingForLock() {
        Await.until(
                "the store's transaction waits for the outbox lock",
                () -> storePids("wait_event_type = 'Lock'").size() == 1);
        return storePids("wait_event_type = 'Lock'").get(0);
    }

    private ReactiveStore openStore(int port, String applicationName) {
        return openStore(port, applicationName, R2dbcStoreConfig.DEFAULT_OPERATION_TIMEOUT);
    }

    private ReactiveStore openStore(int port, String applicationName, Duration operationTimeout) {
        ConnectionFactory factory = ConnectionFactories.get(RestartableServer.options(port, applicationName)
                .mutate()
                .option(Option.valueOf("schema"), schema)
                .build());
        ConnectionPool p = new ConnectionPool(ConnectionPoolConfiguration.builder(factory)
                .initialSize(0)
                .maxSize(8)
                .build());
        closeAfter.add(() -> p.disposeLater().block(BOUND));
        R2dbcReactiveStore opened = R2dbcReactiveStore.open(
                        R2dbcStoreConfig.of(p).withNotifyChannel(schema).withOperationTimeout(operationTimeout))
                .block(BOUND);
        closeAfter.add(opened::close);
        return opened;
    }

    private WriteLoad startLoad(ReactiveStore s) {
        WriteLoad load = new WriteLoad(s, WORKFLOWS);
        closeAfter.add(load);
        load.start();
        Await.until(
                "the load is running: 5 appends per workflow and 20 settles acknowledged",
                () -> load.appendsAcknowledged() >= 5 * WORKFLOWS && load.settled.size() >= 20);
        return load;
    }

    /**
     * Waits until every writer has had an attempt end in failure since the server went away, checks
     * that single operations end with a clear error meanwhile, and keeps the server away for at least
     * {@link #OUTAGE}.
     *
     * @return how long the server was away so far
     */
    private Duration awaitFailuresDuringOutage(ReactiveStore s, WriteLoad load, Instant down) {
        int failedBefore = load.failedAttempts.get();
        Await.until(
                "every writer saw an attempt fail while the server is away",
                () -> load.workflowsWithFailures(1) == WORKFLOWS && load.failedAttempts.get() > failedBefore);
        WorkflowId w = load.workflows().get(0);
        StepVerifier.create(s.readHead(w))
                .expectError(TransientBackendException.class)
                .verify(WriteLoad.ATTEMPT_BOUND);
        StepVerifier.create(s.claim(ClaimRequest.of(10)))
                .expectError(TransientBackendException.class)
                .verify(WriteLoad.ATTEMPT_BOUND);
        StepVerifier.create(s.settleKeys(List.of(OutboxRow.dispatchKey(w, 2)), Settlement.complete()))
                .expectError(TransientBackendException.class)
                .verify(WriteLoad.ATTEMPT_BOUND);
        StepVerifier.create(s.readHistory(w))
                .expectError(TransientBackendException.class)
                .verify(WriteLoad.ATTEMPT_BOUND);
        Duration away = Duration.between(down, Instant.now());
        if (away.compareTo(OUTAGE) < 0) {
            Mono.delay(OUTAGE.minus(away)).block(); // the writers and the claim stream keep retrying meanwhile
        }
        return Duration.between(down, Instant.now());
    }

    private void assertRecovered(WriteLoad load, Duration outage, Instant up) {
        int ackedAtUp = load.appendsAcknowledged();
        int settledAtUp = load.settled.size();
        int claimedAtUp = load.claimedRows.get();
        Await.until("the same store acknowledges appends again", () -> load.appendsAcknowledged() > ackedAtUp);
        Duration recovery = Duration.between(up, Instant.now());
        Await.until(
                "every writer and the claim stream make progress again",
                () -> load.appendsAcknowledged() >= ackedAtUp + 3 * WORKFLOWS
                        && load.settled.size() >= settledAtUp + 20
                        && load.claimedRows.get() > claimedAtUp);
        load.stop(BOUND);

        assertThat(load.hangs)
                .as("operations that did not end within %s", WriteLoad.ATTEMPT_BOUND)
                .isEmpty();
        assertThat(load.claimStreamEnded.get()).as("the claim stream's end").isNull();
        int checked = assertLedgerHolds(load);
        report(
                "outage %d ms, first acknowledged append %d ms after the server was back; %d failed attempts "
                        + "(longest %d ms), %d committed although failed; checked %d acknowledged appends and settles",
                outage.toMillis(),
                recovery.toMillis(),
                load.failedAttempts.get(),
                load.longestFailureNanos.get() / 1_000_000,
                load.committedButFailed.get(),
                checked);
    }

    /**
     * Reads the tables outside the store and checks the ledger: acknowledged appends present,
     * histories contiguous, each event with both its rows and each row with its event, acknowledged
     * settles done.
     *
     * @return the number of acknowledged appends and settles checked
     */
    private int assertLedgerHolds(WriteLoad load) {
        // what was acknowledged before the tables are read: the claim stream still settles meanwhile
        Set<String> settled = new HashSet<>(load.settled);
        Map<WorkflowId, Set<Long>> appended = new HashMap<>();
        load.acknowledged.forEach((w, steps) -> appended.put(w, new HashSet<>(steps)));
        Map<String, Set<Long>> seqs = new HashMap<>();
        for (Object[] r : sql("SELECT workflow_id, seq FROM " + schema + ".events")) {
            seqs.computeIfAbsent((String) r[0], k -> new TreeSet<>()).add((Long) r[1]);
        }
        Map<String, Set<Long>> ordinals = new HashMap<>();
        Map<String, String> status = new HashMap<>();
        for (Object[] r : sql("SELECT workflow_id, ordinal, status, dispatch_key FROM " + schema + ".outbox")) {
            ordinals.computeIfAbsent((String) r[0], k -> new TreeSet<>()).add((Long) r[1]);
            status.put((String) r[3], (String) r[2]);
        }
        int checked = 0;
        for (WorkflowId w : load.workflows()) {
            Set<Long> events = seqs.getOrDefault(w.toString(), Set.of());
            Set<Long> rows = ordinals.getOrDefault(w.toString(), Set.of());
            Set<Long> acked = appended.get(w);
            Ledger.assertWorkflowHolds(w, events, rows, acked);
            checked += acked.size();
        }
        for (String key : settled) {
            assertThat(status.get(key)).as("acknowledged settle of %s", key).isEqualTo("done");
        }
        return checked + settled.size();
    }

    /** The figures of a run, on the test's standard output (the surefire report keeps them). */
    private static void report(String format, Object... args) {
        System.out.printf("PostgresFaultTest: " + format + "%n", args);
    }

    /** Runs one statement on a fresh plain connection to the server (not through any proxy). */
    static List<Object[]> sql(String statement) {
        return Flux.usingWhen(
                        Mono.from(admin.create()),
                        c -> Flux.from(c.createStatement(statement).execute())
                                .concatMap(r -> r.map((row, meta) -> {
                                    Object[] values =
                                            new Object[meta.getColumnMetadatas().size()];
                                    for (int i = 0; i < values.length; i++) {
                                        values[i] = row.get(i);
                                    }
                                    return values;
                                })),
                        Connection::close)
                .collectList()
                .block(BOUND);
    }
}
