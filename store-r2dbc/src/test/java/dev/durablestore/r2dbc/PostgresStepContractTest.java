package dev.durablestore.r2dbc;

import dev.durablestore.tck.StepContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresStepContractTest extends StepContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
