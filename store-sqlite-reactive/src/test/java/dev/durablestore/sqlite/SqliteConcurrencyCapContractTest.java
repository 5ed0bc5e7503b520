package dev.durablestore.sqlite;

import dev.durablestore.tck.ConcurrencyCapContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteConcurrencyCapContractTest extends ConcurrencyCapContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
