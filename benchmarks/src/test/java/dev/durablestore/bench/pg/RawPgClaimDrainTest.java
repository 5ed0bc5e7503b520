package dev.durablestore.bench.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The copied claim statement keeps the markers its binding fills, and serial adds only its predicate. */
class RawPgClaimDrainTest {

    /** Two arms of now, route, limit; the outer limit; now and token; limit and route of the next-due read. */
    private static final int MARKERS = 2 * 4 + 1 + 2 + 3;

    @Test
    void bothClaimsHaveTheMarkersTheBindingFills() {
        assertThat(markers(RawPgClaimDrain.claimSql(false))).isEqualTo(MARKERS);
        assertThat(markers(RawPgClaimDrain.claimSql(true))).isEqualTo(MARKERS);
    }

    @Test
    void theSerialClaimAddsItsPredicateToBothArmsAndTheNextDueRead() {
        String plain = RawPgClaimDrain.claimSql(false);
        String serial = RawPgClaimDrain.claimSql(true);
        String predicate = " AND NOT EXISTS (SELECT 1 FROM outbox s WHERE s.workflow_id = outbox.workflow_id";

        assertThat(plain).doesNotContain("NOT EXISTS");
        assertThat(serial.split(Pattern.quote(predicate), -1)).hasSize(4);
        assertThat(serial.replaceAll(" AND NOT EXISTS \\(SELECT 1 FROM outbox s .*?dispatch_key\\)\\)\\)\\)\\)", ""))
                .isEqualTo(plain);
    }

    private static long markers(String sql) {
        return sql.chars().filter(c -> c == '?').count();
    }
}
