package dev.durablestore.sqlite;

import dev.durablestore.tck.HugeLimitContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteHugeLimitContractTest extends HugeLimitContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
