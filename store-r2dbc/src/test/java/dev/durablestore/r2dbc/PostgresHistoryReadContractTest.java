package dev.durablestore.r2dbc;

import dev.durablestore.tck.HistoryReadContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresHistoryReadContractTest extends HistoryReadContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
