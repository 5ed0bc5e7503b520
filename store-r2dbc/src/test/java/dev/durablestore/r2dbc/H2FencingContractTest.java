package dev.durablestore.r2dbc;

import dev.durablestore.tck.FencingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2FencingContractTest extends FencingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
