package dev.durablestore.r2dbc.blockhound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.r2dbc.PostgresServer;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import dev.durablestore.testsupport.blockhound.BlockHoundSession;
import dev.durablestore.testsupport.blockhound.NonBlockingTestSupport;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Option;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Runs every kind of store operation from Reactor's non-blocking {@code parallel} threads under
 * BlockHound (installed for the JVM by {@link BlockHoundSession} in the {@code blockhound} Surefire
 * execution), on PostgreSQL and on H2. On PostgreSQL every statement runs on Netty event loops,
 * which BlockHound watches too; on H2 the store moves the (blocking) engine calls to its own threads.
 * The workload and the latch check are {@link NonBlockingTestSupport}'s; this class opens the
 * stores, itself from a parallel thread.
 */
class NonBlockingTest extends NonBlockingTestSupport {

    NonBlockingTest() {
        super(Duration.ofSeconds(60));
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
            pool.disposeLater().block(timeout());
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

    private void runWorkload(R2dbcStoreConfig config) {
        R2dbcReactiveStore opened = R2dbcReactiveStore.open(config)
                .subscribeOn(Schedulers.parallel())
                .block(timeout());
        assertThat(opened).isNotNull();
        assertEveryOperationStaysNonBlocking(opened);
    }

    private void exec(ConnectionFactory factory, String sql) {
        Mono.usingWhen(
                        Mono.from(factory.create()),
                        c -> Flux.from(c.createStatement(sql).execute())
                                .concatMap(r -> r.getRowsUpdated())
                                .then(),
                        c -> Mono.from(c.close()))
                .block(timeout());
    }
}
