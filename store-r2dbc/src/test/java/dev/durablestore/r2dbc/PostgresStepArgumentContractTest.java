package dev.durablestore.r2dbc;

import dev.durablestore.tck.StepArgumentContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresStepArgumentContractTest extends StepArgumentContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
