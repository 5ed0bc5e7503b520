package dev.durablestore.r2dbc;

import dev.durablestore.tck.HistoryReadContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2HistoryReadContractTest extends HistoryReadContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
