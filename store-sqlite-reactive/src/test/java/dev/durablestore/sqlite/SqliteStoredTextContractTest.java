package dev.durablestore.sqlite;

import dev.durablestore.tck.StoreHarnessFactory;
import dev.durablestore.tck.StoredTextContract;

class SqliteStoredTextContractTest extends StoredTextContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
