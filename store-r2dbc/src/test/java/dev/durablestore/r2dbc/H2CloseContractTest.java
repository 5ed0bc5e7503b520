package dev.durablestore.r2dbc;

import dev.durablestore.tck.CloseContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2CloseContractTest extends CloseContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
