package dev.durablestore.sqlite;

import dev.durablestore.tck.StepFencingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteStepFencingContractTest extends StepFencingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
