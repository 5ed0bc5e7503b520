package dev.durablestore.r2dbc;

import dev.durablestore.tck.StatusProjectionContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2StatusProjectionContractTest extends StatusProjectionContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
