package dev.durablestore.r2dbc;

import dev.durablestore.tck.ReadSummaryContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2ReadSummaryContractTest extends ReadSummaryContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
