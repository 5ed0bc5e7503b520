package dev.durablestore.r2dbc;

import dev.durablestore.tck.RunChainContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresRunChainContractTest extends RunChainContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
