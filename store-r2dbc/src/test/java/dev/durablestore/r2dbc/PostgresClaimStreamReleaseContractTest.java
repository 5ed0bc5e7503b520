package dev.durablestore.r2dbc;

import dev.durablestore.tck.ClaimStreamReleaseContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresClaimStreamReleaseContractTest extends ClaimStreamReleaseContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
