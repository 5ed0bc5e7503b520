package dev.durablestore.sqlite;

import dev.durablestore.tck.ReadSummaryContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteReadSummaryContractTest extends ReadSummaryContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
