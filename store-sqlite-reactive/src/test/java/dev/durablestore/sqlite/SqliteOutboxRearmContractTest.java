package dev.durablestore.sqlite;

import dev.durablestore.tck.OutboxRearmContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteOutboxRearmContractTest extends OutboxRearmContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
