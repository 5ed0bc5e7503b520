package dev.durablestore.r2dbc;

import dev.durablestore.tck.NodeConcurrencyCapContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2NodeConcurrencyCapContractTest extends NodeConcurrencyCapContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
