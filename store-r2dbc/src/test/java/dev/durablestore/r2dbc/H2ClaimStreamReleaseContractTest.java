package dev.durablestore.r2dbc;

import dev.durablestore.tck.ClaimStreamReleaseContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2ClaimStreamReleaseContractTest extends ClaimStreamReleaseContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
