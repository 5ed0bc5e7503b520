package dev.durablestore.r2dbc;

import dev.durablestore.tck.OutboxRearmContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresOutboxRearmContractTest extends OutboxRearmContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
