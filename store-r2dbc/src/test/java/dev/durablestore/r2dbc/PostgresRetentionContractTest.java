package dev.durablestore.r2dbc;

import dev.durablestore.tck.RetentionContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresRetentionContractTest extends RetentionContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
