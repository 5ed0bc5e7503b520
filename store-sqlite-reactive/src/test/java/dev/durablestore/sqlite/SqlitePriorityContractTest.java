package dev.durablestore.sqlite;

import dev.durablestore.tck.PriorityContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqlitePriorityContractTest extends PriorityContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
