package dev.durablestore.r2dbc;

import dev.durablestore.tck.OutboxListingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2OutboxListingContractTest extends OutboxListingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
