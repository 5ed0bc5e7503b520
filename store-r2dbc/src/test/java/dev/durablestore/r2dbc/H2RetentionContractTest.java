package dev.durablestore.r2dbc;

import dev.durablestore.tck.RetentionContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2RetentionContractTest extends RetentionContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
