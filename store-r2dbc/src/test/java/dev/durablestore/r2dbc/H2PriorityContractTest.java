package dev.durablestore.r2dbc;

import dev.durablestore.tck.PriorityContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2PriorityContractTest extends PriorityContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
