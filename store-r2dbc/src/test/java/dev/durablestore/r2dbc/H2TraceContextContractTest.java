package dev.durablestore.r2dbc;

import dev.durablestore.tck.StoreHarnessFactory;
import dev.durablestore.tck.TraceContextContract;

class H2TraceContextContractTest extends TraceContextContract {
    @Override
    protected StoreHarnessFactory harnessFactory() {
        return H2Harness::new;
    }
}
