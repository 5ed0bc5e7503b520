package dev.durablestore.r2dbc;

import dev.durablestore.tck.AppendContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2AppendContractTest extends AppendContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
