package dev.durablestore.r2dbc;

import dev.durablestore.tck.KeyOrderContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2KeyOrderContractTest extends KeyOrderContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
