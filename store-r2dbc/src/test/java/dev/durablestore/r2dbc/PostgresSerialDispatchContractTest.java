package dev.durablestore.r2dbc;

import dev.durablestore.tck.SerialDispatchContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresSerialDispatchContractTest extends SerialDispatchContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
