package dev.durablestore.sqlite;

import dev.durablestore.tck.OutboxListingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteOutboxListingContractTest extends OutboxListingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
