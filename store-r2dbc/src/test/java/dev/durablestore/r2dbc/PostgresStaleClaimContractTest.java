package dev.durablestore.r2dbc;

import dev.durablestore.tck.StaleClaimContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresStaleClaimContractTest extends StaleClaimContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
