package dev.durablestore.r2dbc;

import dev.durablestore.tck.KeyOrderContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresKeyOrderContractTest extends KeyOrderContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
