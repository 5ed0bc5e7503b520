package dev.durablestore.sqlite;

import dev.durablestore.tck.OutboxArgumentContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteOutboxArgumentContractTest extends OutboxArgumentContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
