package dev.durablestore.r2dbc;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.tck.StoreHarness;
import dev.durablestore.tck.TestClock;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The H2 harness for the contract kit: one in-memory H2 database in {@code MODE=PostgreSQL} per
 * test, under a unique name, kept alive between connections ({@code DB_CLOSE_DELAY=-1}) and shut
 * down when the test ends.
 */
final class H2Harness implements StoreHarness {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final TestClock clock;
    private final ConnectionFactory raw;
    private final ConnectionPool factory;
    private final List<ReactiveStore> opened = new ArrayList<>();

    H2Harness(TestClock clock) {
        this.clock = clock;
        String name = "tck_" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
        this.raw = ConnectionFactories.get("r2dbc:h2:mem:///" + name + "?options=DB_CLOSE_DELAY=-1;MODE=PostgreSQL");
        // pooled like production: r2dbc-h2 opens a new H2 session per connection, which costs more
        // than the transaction it is used for
        this.factory = new ConnectionPool(ConnectionPoolConfiguration.builder(raw)
                .initialSize(0)
                .maxSize(10)
                .build());
    }

    /** @return the connection factory of this test's database */
    ConnectionFactory factory() {
        return factory;
    }

    @Override
    public ReactiveStore open() {
        return HarnessSupport.open(R2dbcStoreConfig.of(factory).withClock(clock), opened);
    }

    @Override
    public TestClock clock() {
        return clock;
    }

    @Override
    public void corruptEvent(WorkflowId workflowId, long seq) {
        HarnessSupport.corruptEvent(factory, workflowId.toString(), seq);
    }

    @Override
    public void corruptOutboxInput(String dispatchKey) {
        HarnessSupport.corruptOutboxInput(factory, dispatchKey);
    }

    @Override
    public void close() {
        HarnessSupport.closeAll(opened);
        factory.disposeLater().block(HarnessSupport.TIMEOUT);
        HarnessSupport.execute(raw, "SHUTDOWN"); // drops the in-memory database
    }
}
