package dev.durablestore.r2dbc;

import dev.durablestore.tck.StaleClaimContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2StaleClaimContractTest extends StaleClaimContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
