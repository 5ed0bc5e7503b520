package dev.durablestore.r2dbc;

import dev.durablestore.tck.OutboxArgumentContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresOutboxArgumentContractTest extends OutboxArgumentContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
