package dev.durablestore.r2dbc;

import dev.durablestore.tck.PriorityContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresPriorityContractTest extends PriorityContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
