package dev.durablestore.r2dbc;

import dev.durablestore.tck.QueryContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresQueryContractTest extends QueryContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
