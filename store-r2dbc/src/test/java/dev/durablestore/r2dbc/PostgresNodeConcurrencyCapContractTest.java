package dev.durablestore.r2dbc;

import dev.durablestore.tck.NodeConcurrencyCapContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresNodeConcurrencyCapContractTest extends NodeConcurrencyCapContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
