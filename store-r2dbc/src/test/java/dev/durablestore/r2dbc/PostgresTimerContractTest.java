package dev.durablestore.r2dbc;

import dev.durablestore.tck.TimerContract;
import dev.durablestore.tck.StoreHarnessFactory;

class PostgresTimerContractTest extends TimerContract {
    @Override protected StoreHarnessFactory harnessFactory() { return PostgresHarness::new; }
}
