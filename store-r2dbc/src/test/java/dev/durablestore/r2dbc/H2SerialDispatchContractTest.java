package dev.durablestore.r2dbc;

import dev.durablestore.tck.SerialDispatchContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2SerialDispatchContractTest extends SerialDispatchContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
