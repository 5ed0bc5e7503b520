package dev.durablestore.r2dbc;

import dev.durablestore.tck.ClaimStreamContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2ClaimStreamContractTest extends ClaimStreamContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
