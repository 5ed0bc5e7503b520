package dev.durablestore.r2dbc;

import dev.durablestore.tck.DurabilityContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2DurabilityContractTest extends DurabilityContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
