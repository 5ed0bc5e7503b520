package dev.durablestore.r2dbc;

import dev.durablestore.tck.ClaimContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresClaimContractTest extends ClaimContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
