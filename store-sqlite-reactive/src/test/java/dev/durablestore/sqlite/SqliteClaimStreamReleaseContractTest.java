package dev.durablestore.sqlite;

import dev.durablestore.tck.ClaimStreamReleaseContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteClaimStreamReleaseContractTest extends ClaimStreamReleaseContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
