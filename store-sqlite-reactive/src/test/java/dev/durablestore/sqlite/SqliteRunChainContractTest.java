package dev.durablestore.sqlite;

import dev.durablestore.tck.RunChainContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteRunChainContractTest extends RunChainContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
