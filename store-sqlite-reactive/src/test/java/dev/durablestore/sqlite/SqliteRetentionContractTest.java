package dev.durablestore.sqlite;

import dev.durablestore.tck.RetentionContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteRetentionContractTest extends RetentionContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
