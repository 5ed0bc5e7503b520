package dev.durablestore.r2dbc;

import dev.durablestore.tck.OutboxStagingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2OutboxStagingContractTest extends OutboxStagingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
