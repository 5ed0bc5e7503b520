package dev.durablestore.r2dbc;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.tck.StoreHarness;
import dev.durablestore.tck.TestClock;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Option;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The PostgreSQL harness for the contract kit: a fresh schema per test on the one server of the
 * test run ({@link PostgresServer}), reached through an r2dbc-pool pool whose connections have that
 * schema as their search path; the schema is dropped when the test ends. Each harness notifies on a
 * channel named after its schema.
 */
final class PostgresHarness implements StoreHarness {

    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private static final Option<String> SCHEMA = Option.valueOf("schema");

    private final TestClock clock;
    private final String schema;
    private final ConnectionFactory admin;
    private final ConnectionPool pool;
    private final List<ReactiveStore> opened = new ArrayList<>();

    PostgresHarness(TestClock clock) {
        this.clock = clock;
        this.schema = "tck_" + SCHEMAS.incrementAndGet() + "_"
                + UUID.randomUUID().toString().substring(0, 8);
        this.admin = PostgresServer.admin();
        HarnessSupport.execute(admin, "CREATE SCHEMA " + schema);
        ConnectionFactory factory = ConnectionFactories.get(
                PostgresServer.options().mutate().option(SCHEMA, schema).build());
        this.pool = new ConnectionPool(ConnectionPoolConfiguration.builder(factory)
                .initialSize(0)
                .maxSize(10)
                .build());
    }

    /** @return the pool of this test's schema */
    ConnectionFactory factory() {
        return pool;
    }

    /** @return this test's schema, also its notify channel */
    String schema() {
        return schema;
    }

    @Override
    public ReactiveStore open() {
        return HarnessSupport.open(R2dbcStoreConfig.of(pool).withClock(clock).withNotifyChannel(schema), opened);
    }

    @Override
    public TestClock clock() {
        return clock;
    }

    @Override
    public void corruptEvent(WorkflowId workflowId, long seq) {
        HarnessSupport.corruptEvent(pool, workflowId.toString(), seq);
    }

    @Override
    public void corruptOutboxInput(String dispatchKey) {
        HarnessSupport.corruptOutboxInput(pool, dispatchKey);
    }

    @Override
    public void close() {
        HarnessSupport.closeAll(opened);
        pool.disposeLater().block(HarnessSupport.TIMEOUT);
        HarnessSupport.execute(admin, "DROP SCHEMA " + schema + " CASCADE");
    }
}
