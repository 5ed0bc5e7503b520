package dev.durablestore.r2dbc;

import dev.durablestore.tck.OutboxArgumentContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2OutboxArgumentContractTest extends OutboxArgumentContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
