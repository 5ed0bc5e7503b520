package dev.durablestore.sqlite;

import dev.durablestore.tck.OutboxStagingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteOutboxStagingContractTest extends OutboxStagingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
