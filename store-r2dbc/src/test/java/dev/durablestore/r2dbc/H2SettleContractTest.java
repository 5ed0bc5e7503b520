package dev.durablestore.r2dbc;

import dev.durablestore.tck.SettleContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2SettleContractTest extends SettleContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
