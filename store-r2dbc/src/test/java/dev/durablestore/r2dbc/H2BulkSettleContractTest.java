package dev.durablestore.r2dbc;

import dev.durablestore.tck.BulkSettleContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2BulkSettleContractTest extends BulkSettleContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
