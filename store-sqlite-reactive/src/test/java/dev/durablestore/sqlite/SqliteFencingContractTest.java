package dev.durablestore.sqlite;

import dev.durablestore.tck.FencingContract;
import dev.durablestore.tck.StoreHarnessFactory;

class SqliteFencingContractTest extends FencingContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
