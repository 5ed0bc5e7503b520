package dev.durablestore.sqlite;

import dev.durablestore.tck.AppendContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteAppendContractTest extends AppendContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
