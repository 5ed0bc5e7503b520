package dev.durablestore.r2dbc;

import dev.durablestore.tck.ReadSummaryContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresReadSummaryContractTest extends ReadSummaryContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
