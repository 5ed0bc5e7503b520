package dev.durablestore.r2dbc;

import dev.durablestore.tck.RunChainContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2RunChainContractTest extends RunChainContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
