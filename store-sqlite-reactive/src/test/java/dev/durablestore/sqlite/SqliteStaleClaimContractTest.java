package dev.durablestore.sqlite;

import dev.durablestore.tck.StaleClaimContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteStaleClaimContractTest extends StaleClaimContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
