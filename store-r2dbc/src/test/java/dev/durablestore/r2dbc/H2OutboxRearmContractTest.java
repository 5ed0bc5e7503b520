package dev.durablestore.r2dbc;

import dev.durablestore.tck.OutboxRearmContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2OutboxRearmContractTest extends OutboxRearmContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
