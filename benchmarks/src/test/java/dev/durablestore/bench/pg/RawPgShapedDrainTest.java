package dev.durablestore.bench.pg;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The copied claim and settle statements keep the markers their bindings fill. */
class RawPgShapedDrainTest {

    @Test
    void theClaimHasTheMarkersItsBindingFills() {
        // given the store's stream claim with no scope, nothing held and no policy
        String sql = RawPgShapedDrain.claimSql();

        // when its markers are counted
        long markers = markers(sql);

        // then two arms of now and limit, the outer limit, now, token and claimer, the next-due limit
        assertThat(markers).isEqualTo(2 * 2 + 1 + 3 + 1);
        assertThat(sql)
                .contains("claimed_by = ?")
                .contains("FOR UPDATE SKIP LOCKED")
                .endsWith("ON true");
    }

    @Test
    void theSettleHasTheStatusTheSettleTimeAndTheKeys() {
        // given the store's grouped settle of completes
        String sql = RawPgShapedDrain.SETTLE;

        // when its markers are counted
        long markers = markers(sql);

        // then the status, the settle time and the array of keys
        assertThat(markers).isEqualTo(3);
        assertThat(sql).contains("WHERE dispatch_key = ANY(?::text[])");
    }

    private static long markers(String sql) {
        return sql.chars().filter(c -> c == '?').count();
    }
}
