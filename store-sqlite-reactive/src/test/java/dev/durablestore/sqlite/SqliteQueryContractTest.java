package dev.durablestore.sqlite;

import dev.durablestore.tck.QueryContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteQueryContractTest extends QueryContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
