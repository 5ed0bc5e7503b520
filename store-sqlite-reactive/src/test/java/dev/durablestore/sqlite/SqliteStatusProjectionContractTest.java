package dev.durablestore.sqlite;

import dev.durablestore.tck.StatusProjectionContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteStatusProjectionContractTest extends StatusProjectionContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
