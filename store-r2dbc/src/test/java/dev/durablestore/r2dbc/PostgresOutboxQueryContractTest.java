package dev.durablestore.r2dbc;

import dev.durablestore.tck.OutboxQueryContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresOutboxQueryContractTest extends OutboxQueryContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
