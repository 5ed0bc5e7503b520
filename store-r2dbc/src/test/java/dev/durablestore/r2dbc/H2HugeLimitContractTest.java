package dev.durablestore.r2dbc;

import dev.durablestore.tck.HugeLimitContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2HugeLimitContractTest extends HugeLimitContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
