package dev.durablestore.sqlite;

import dev.durablestore.tck.SerialDispatchContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteSerialDispatchContractTest extends SerialDispatchContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
