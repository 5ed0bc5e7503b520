package dev.durablestore.sqlite;

import dev.durablestore.tck.ClaimContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteClaimContractTest extends ClaimContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
