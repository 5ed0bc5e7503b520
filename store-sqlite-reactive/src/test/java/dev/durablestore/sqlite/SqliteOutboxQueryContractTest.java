package dev.durablestore.sqlite;

import dev.durablestore.tck.OutboxQueryContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteOutboxQueryContractTest extends OutboxQueryContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
