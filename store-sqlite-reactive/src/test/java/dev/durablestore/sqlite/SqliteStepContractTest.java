package dev.durablestore.sqlite;

import dev.durablestore.tck.StepContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteStepContractTest extends StepContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
