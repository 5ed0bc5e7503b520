package dev.durablestore.r2dbc;

import dev.durablestore.tck.StoreHarnessFactory;
import dev.durablestore.tck.TimerContract;

class H2TimerContractTest extends TimerContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
