package dev.durablestore.r2dbc;

import dev.durablestore.tck.StoreHarnessFactory;
import dev.durablestore.tck.TimerContract;

class PostgresTimerContractTest extends TimerContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
