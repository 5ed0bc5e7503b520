package dev.durablestore.r2dbc;

import dev.durablestore.tck.FailureReasonContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresFailureReasonContractTest extends FailureReasonContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
