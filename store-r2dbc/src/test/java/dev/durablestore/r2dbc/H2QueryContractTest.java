package dev.durablestore.r2dbc;

import dev.durablestore.tck.QueryContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2QueryContractTest extends QueryContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
