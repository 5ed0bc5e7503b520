package dev.durablestore.r2dbc;

import dev.durablestore.tck.FailureReasonContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2FailureReasonContractTest extends FailureReasonContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
