package dev.durablestore.r2dbc;

import dev.durablestore.tck.StepFencingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2StepFencingContractTest extends StepFencingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
