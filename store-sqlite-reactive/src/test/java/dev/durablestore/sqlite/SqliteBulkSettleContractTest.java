package dev.durablestore.sqlite;

import dev.durablestore.tck.BulkSettleContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteBulkSettleContractTest extends BulkSettleContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
