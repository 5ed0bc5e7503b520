package dev.durablestore.r2dbc;

import dev.durablestore.tck.StoreHarnessFactory;
import dev.durablestore.tck.TraceContextContract;

class PostgresTraceContextContractTest extends TraceContextContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return PostgresHarness::new;
    }
}
