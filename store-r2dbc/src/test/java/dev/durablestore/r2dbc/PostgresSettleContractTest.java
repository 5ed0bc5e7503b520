package dev.durablestore.r2dbc;

import dev.durablestore.tck.SettleContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresSettleContractTest extends SettleContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
