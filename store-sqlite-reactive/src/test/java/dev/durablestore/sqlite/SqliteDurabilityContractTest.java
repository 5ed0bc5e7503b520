package dev.durablestore.sqlite;

import dev.durablestore.tck.DurabilityContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteDurabilityContractTest extends DurabilityContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
