package dev.durablestore.r2dbc;

import dev.durablestore.tck.CloseContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresCloseContractTest extends CloseContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
