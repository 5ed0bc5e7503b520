package dev.durablestore.r2dbc;

import dev.durablestore.tck.HugeLimitContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresHugeLimitContractTest extends HugeLimitContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
