package dev.durablestore.r2dbc;

import dev.durablestore.tck.HistoryArgumentContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresHistoryArgumentContractTest extends HistoryArgumentContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
