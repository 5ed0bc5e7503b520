package dev.durablestore.r2dbc;

import dev.durablestore.tck.OutboxStagingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresOutboxStagingContractTest extends OutboxStagingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
