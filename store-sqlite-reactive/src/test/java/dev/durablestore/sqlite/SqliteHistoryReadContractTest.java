package dev.durablestore.sqlite;

import dev.durablestore.tck.HistoryReadContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteHistoryReadContractTest extends HistoryReadContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
