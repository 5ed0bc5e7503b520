package dev.durablestore.r2dbc;

import dev.durablestore.tck.StepArgumentContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2StepArgumentContractTest extends StepArgumentContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
