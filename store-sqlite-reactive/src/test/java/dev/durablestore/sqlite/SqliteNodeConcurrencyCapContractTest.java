package dev.durablestore.sqlite;

import dev.durablestore.tck.NodeConcurrencyCapContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteNodeConcurrencyCapContractTest extends NodeConcurrencyCapContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
