package dev.durablestore.r2dbc;

import dev.durablestore.tck.LeaseReaperContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresLeaseReaperContractTest extends LeaseReaperContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
