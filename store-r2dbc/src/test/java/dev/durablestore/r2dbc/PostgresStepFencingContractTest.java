package dev.durablestore.r2dbc;

import dev.durablestore.tck.StepFencingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresStepFencingContractTest extends StepFencingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
