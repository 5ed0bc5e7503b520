package dev.durablestore.r2dbc;

import dev.durablestore.tck.FencingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresFencingContractTest extends FencingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
