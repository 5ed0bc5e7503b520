package dev.durablestore.r2dbc.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The PostgreSQL backend when the server's machine vanishes silently (X13): no FIN, no reset, as
 * when a cloud failover moves an address to another machine. A relay ({@link TcpProxy#silenceExisting})
 * keeps every connection made so far open and silent forever, while new connections reach the
 * server as usual. The test checks that the store's {@code LISTEN} connection is found dead by its
 * liveness probe and replaced, so an idle claim stream wakes long before its poll interval, and
 * what writes through a pool of silenced connections do.
 *
 * <p>The class runs its own embedded PostgreSQL ({@link RestartableServer}); verification and the
 * second node reach it directly, not through the relay.
 */
class PostgresSilentHostTest {

    private static final Duration BOUND = Duration.ofSeconds(30);
    /** The idle stream's poll interval: a wake-up well before it came from a notification. */
    private static final Duration POLL = Duration.ofSeconds(60);
    /**
     * The longest a silent {@code LISTEN} connection may go unnoticed and be replaced: the listener's
     * probe interval (10 s) and probe timeout (5 s), its first retry (1 s), and a margin.
     */
    private static final Duration WAKE_BOUND = Duration.ofSeconds(10 + 5 + 1 + 9);
    /** The store's operation timeout here: an operation on a silent connection ends after it. */
    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(3);

    private static RestartableServer server;
    private static ConnectionFactory admin;

    private String schema;
    private TcpProxy relay;
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = RestartableServer.start();
        admin = ConnectionFactories.get(RestartableServer.options(server.port(), "silent-admin"));
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void newSchemaAndRelay() {
        schema = "silent_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        sql("CREATE SCHEMA " + schema);
        relay = new TcpProxy(server.port());
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
        relay.close();
        sql("DROP SCHEMA " + schema + " CASCADE");
    }

    @Test
    void X13_a_listen_connection_gone_silent_is_replaced_and_an_idle_stream_wakes_long_before_its_poll_interval() {
        // given a store that reaches the server through the relay, on a pool that validates a
        // connection with a bounded query before handing it out (the pool settings docs/postgresql.md
        // recommends), with an idle claim stream polling every minute, and a second store, as another
        // node, directly on the server
        ReactiveStore s = openStore(relay.port(), "silent-store", PostgresSilentHostTest::validating);
        ReactiveStore other = openStore(server.port(), "silent-other", UnaryOperator.identity());
        WorkflowId w = WorkflowId.random();
        Map<String, Long> delivered = new ConcurrentHashMap<>();
        closeAfter.add(s.claimStream(ClaimStreamOptions.defaults().withPollInterval(POLL))
                .subscribe(r -> delivered.put(r.dispatchKey(), System.nanoTime()))::dispose);
        // (a first row, delivered through a notification, shows the store listening and the stream idle:
        // it claimed fewer rows than its batch, so it waits for a wake-up or its poll interval)
        OutboxRow first = OutboxRow.pending(w, 0, "work", Payload.json("{}"), Instant.now());
        other.appendOutboxBatch(List.of(first)).block(BOUND);
        Await.until("the idle stream delivered the first row", () -> delivered.containsKey(first.dispatchKey()));

        // when every connection of the store goes silent for good (its LISTEN and its pooled ones),
        // while new connections reach the server
        relay.silenceExisting();
        long silenced = System.nanoTime();

        // and the other node stages a row
        OutboxRow row = OutboxRow.pending(w, 1, "work", Payload.json("{}"), Instant.now());
        other.appendOutboxBatch(List.of(row)).block(BOUND);

        // then the idle stream receives it within the probe's bound, long before its poll interval:
        // the listener found its connection dead and listened again on a new one
        Await.until("the idle stream delivered the row", () -> delivered.containsKey(row.dispatchKey()));
        Duration woken = Duration.ofNanos(delivered.get(row.dispatchKey()) - silenced);
        assertThat(woken).as("from the silence to the wake-up").isLessThan(WAKE_BOUND);
        report(
                "silent LISTEN connection: the idle stream (poll %s) woke %d ms after the silence",
                POLL, woken.toMillis());
    }

    @Test
    void X13_silenced_pooled_connections_fail_writes_at_the_operation_timeout_until_the_pool_validates_them() {
        // given two stores through the relay, their pooled connections warm: one on a pool with
        // default settings, one on a pool that validates a connection with a bounded query
        ReactiveStore plain = openStore(relay.port(), "silent-plain", UnaryOperator.identity());
        ReactiveStore validating = openStore(relay.port(), "silent-validating", PostgresSilentHostTest::validating);
        WorkflowId w = WorkflowId.random();
        WorkflowId v = WorkflowId.random();
        plain.append(w, List.of(WriteLoad.event(w, 1)), 0).block(BOUND);
        validating.append(v, List.of(WriteLoad.event(v, 1)), 0).block(BOUND);

        // when every connection made so far goes silent for good
        relay.silenceExisting();

        // then on the default pool each append ends, with a transient error at the store's operation
        // timeout, never hanging; the pool hands out a silenced connection again every time
        for (int attempt = 1; attempt <= 3; attempt++) {
            long start = System.nanoTime();
            StepVerifier.create(plain.append(w, List.of(WriteLoad.event(w, 2)), 1))
                    .expectErrorSatisfies(e -> assertThat(e)
                            .isInstanceOf(TransientBackendException.class)
                            .hasMessageContaining("timed out after " + OPERATION_TIMEOUT))
                    .verify(OPERATION_TIMEOUT.plusSeconds(2));
            report("default pool: append %d failed after %d ms", attempt, (System.nanoTime() - start) / 1_000_000);
        }
        // and on the validating pool the first append succeeds, on a new connection
        long start = System.nanoTime();
        StepVerifier.create(validating.append(v, List.of(WriteLoad.event(v, 2)), 1))
                .expectComplete()
                .verify(OPERATION_TIMEOUT);
        report("validating pool: append succeeded after %d ms", (System.nanoTime() - start) / 1_000_000);
    }

    /** The pool settings docs/postgresql.md recommends: a silent connection fails its validation. */
    private static ConnectionPoolConfiguration.Builder validating(ConnectionPoolConfiguration.Builder b) {
        return b.validationQuery("SELECT 1")
                .maxValidationTime(Duration.ofSeconds(1))
                .acquireRetry(8);
    }

    private ReactiveStore openStore(
            int port, String applicationName, UnaryOperator<ConnectionPoolConfiguration.Builder> poolSettings) {
        ConnectionFactory factory = ConnectionFactories.get(RestartableServer.options(port, applicationName)
                .mutate()
                .option(Option.valueOf("schema"), schema)
                .build());
        ConnectionPool p = new ConnectionPool(poolSettings
                .apply(ConnectionPoolConfiguration.builder(factory)
                        .initialSize(0)
                        .maxSize(8))
                .build());
        closeAfter.add(() -> p.disposeLater().block(BOUND));
        R2dbcReactiveStore opened = R2dbcReactiveStore.open(
                        R2dbcStoreConfig.of(p).withNotifyChannel(schema).withOperationTimeout(OPERATION_TIMEOUT))
                .block(BOUND);
        closeAfter.add(opened::close);
        return opened;
    }

    /** The figures of a run, on the test's standard output (the surefire report keeps them). */
    private static void report(String format, Object... args) {
        System.out.printf("PostgresSilentHostTest: " + format + "%n", args);
    }

    /** Runs one statement on a fresh plain connection to the server (not through the relay). */
    private static List<Object[]> sql(String statement) {
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
