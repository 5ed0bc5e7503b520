package dev.durablestore.r2dbc;

import dev.durablestore.tck.BulkSettleContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresBulkSettleContractTest extends BulkSettleContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
