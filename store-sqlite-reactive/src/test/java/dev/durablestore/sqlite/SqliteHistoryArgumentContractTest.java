package dev.durablestore.sqlite;

import dev.durablestore.tck.HistoryArgumentContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteHistoryArgumentContractTest extends HistoryArgumentContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
