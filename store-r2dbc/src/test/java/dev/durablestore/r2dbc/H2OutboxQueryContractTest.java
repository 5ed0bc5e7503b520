package dev.durablestore.r2dbc;

import dev.durablestore.tck.OutboxQueryContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2OutboxQueryContractTest extends OutboxQueryContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
