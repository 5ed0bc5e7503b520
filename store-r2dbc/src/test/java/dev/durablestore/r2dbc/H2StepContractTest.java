package dev.durablestore.r2dbc;

import dev.durablestore.tck.StepContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2StepContractTest extends StepContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
