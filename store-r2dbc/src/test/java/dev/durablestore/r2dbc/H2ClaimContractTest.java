package dev.durablestore.r2dbc;

import dev.durablestore.tck.ClaimContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2ClaimContractTest extends ClaimContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
