package dev.durablestore.r2dbc;

import dev.durablestore.tck.DurabilityContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresDurabilityContractTest extends DurabilityContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
