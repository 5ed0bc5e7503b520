package dev.durablestore.r2dbc;

import dev.durablestore.tck.AppendContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresAppendContractTest extends AppendContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
