package dev.durablestore.sqlite;

import dev.durablestore.tck.CloseContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteCloseContractTest extends CloseContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
