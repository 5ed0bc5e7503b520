package dev.durablestore.sqlite;

import dev.durablestore.tck.StepArgumentContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteStepArgumentContractTest extends StepArgumentContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
