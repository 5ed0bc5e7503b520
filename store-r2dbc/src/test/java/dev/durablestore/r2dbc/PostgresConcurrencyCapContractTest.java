package dev.durablestore.r2dbc;

import dev.durablestore.tck.ConcurrencyCapContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresConcurrencyCapContractTest extends ConcurrencyCapContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
