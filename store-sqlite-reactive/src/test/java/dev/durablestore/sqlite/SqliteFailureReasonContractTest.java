package dev.durablestore.sqlite;

import dev.durablestore.tck.FailureReasonContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteFailureReasonContractTest extends FailureReasonContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
