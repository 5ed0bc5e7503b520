package dev.durablestore.r2dbc;

import dev.durablestore.tck.ClaimStreamContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresClaimStreamContractTest extends ClaimStreamContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
