package dev.durablestore.r2dbc;

import dev.durablestore.tck.StoreHarnessFactory;
import dev.durablestore.tck.StoredTextContract;

class H2StoredTextContractTest extends StoredTextContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
