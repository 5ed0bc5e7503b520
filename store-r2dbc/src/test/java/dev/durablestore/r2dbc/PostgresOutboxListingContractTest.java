package dev.durablestore.r2dbc;

import dev.durablestore.tck.OutboxListingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresOutboxListingContractTest extends OutboxListingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
