package dev.durablestore.r2dbc;

import dev.durablestore.tck.TimerContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2TimerContractTest extends TimerContract {
    @Override protected StoreHarnessFactory harnessFactory() { return H2Harness::new; }
}
