package dev.durablestore.sqlite;

import dev.durablestore.tck.ClaimStreamContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteClaimStreamContractTest extends ClaimStreamContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
