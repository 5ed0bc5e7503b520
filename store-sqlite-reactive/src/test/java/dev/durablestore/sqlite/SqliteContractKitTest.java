package dev.durablestore.sqlite;

import dev.durablestore.tck.ContractKit;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * SQLite runs every contract of the kit: each has its {@code Sqlite<Contract>Test} in this package,
 * which the {@code blockhound} Surefire execution runs.
 */
class SqliteContractKitTest {

    @Test
    void every_contract_of_the_kit_runs_on_sqlite() {
        // no contract is left out on SQLite
        ContractKit.assertEveryContractRuns("Sqlite", SqliteContractKitTest.class, Map.of());
    }
}
