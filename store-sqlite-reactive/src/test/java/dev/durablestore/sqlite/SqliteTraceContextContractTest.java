package dev.durablestore.sqlite;

import dev.durablestore.tck.StoreHarnessFactory;
import dev.durablestore.tck.TraceContextContract;

class SqliteTraceContextContractTest extends TraceContextContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return SqliteTestHarness::new;
    }
}
