package dev.durablestore.sqlite;

import dev.durablestore.tck.TimerContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteTimerContractTest extends TimerContract {
    @Override protected StoreHarnessFactory harnessFactory() { return SqliteTestHarness::new; }
}
