package dev.durablestore.sqlite;

import dev.durablestore.tck.KeyOrderContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteKeyOrderContractTest extends KeyOrderContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
