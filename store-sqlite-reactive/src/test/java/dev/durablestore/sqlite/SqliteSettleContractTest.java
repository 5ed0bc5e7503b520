package dev.durablestore.sqlite;

import dev.durablestore.tck.SettleContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteSettleContractTest extends SettleContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
