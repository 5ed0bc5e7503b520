package dev.durablestore.r2dbc;

import dev.durablestore.tck.HistoryArgumentContract;
import dev.durablestore.tck.StoreHarnessFactory;

class H2HistoryArgumentContractTest extends HistoryArgumentContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
