package dev.durablestore.sqlite;

import dev.durablestore.tck.LeaseReaperContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteLeaseReaperContractTest extends LeaseReaperContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
