package dev.durablestore.r2dbc;

import dev.durablestore.tck.ContractKit;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL and H2 each run every contract of the kit: each has its {@code Postgres<Contract>Test}
 * (run by the {@code blockhound} Surefire execution) and its {@code H2<Contract>Test} (run by the
 * default one) in this package.
 */
class R2dbcContractKitTest {

    @Test
    void every_contract_of_the_kit_runs_on_postgresql() {
        // no contract is left out on PostgreSQL
        ContractKit.assertEveryContractRuns("Postgres", R2dbcContractKitTest.class, Map.of());
    }

    @Test
    void every_contract_of_the_kit_runs_on_h2() {
        // no contract is left out on H2
        ContractKit.assertEveryContractRuns("H2", R2dbcContractKitTest.class, Map.of());
    }
}
