package dev.durablestore.r2dbc;

import dev.durablestore.tck.StatusProjectionContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresStatusProjectionContractTest extends StatusProjectionContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
