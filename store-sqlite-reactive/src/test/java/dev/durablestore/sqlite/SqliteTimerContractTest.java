package dev.durablestore.sqlite;

import dev.durablestore.tck.StoreHarnessFactory;
import dev.durablestore.tck.TimerContract;

class SqliteTimerContractTest extends TimerContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
