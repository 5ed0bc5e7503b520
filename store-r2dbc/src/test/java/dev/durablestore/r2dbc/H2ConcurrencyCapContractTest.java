package dev.durablestore.r2dbc;

import dev.durablestore.tck.ConcurrencyCapContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2ConcurrencyCapContractTest extends ConcurrencyCapContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
