package dev.durablestore.r2dbc;

import dev.durablestore.tck.LeaseReaperContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2LeaseReaperContractTest extends LeaseReaperContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
