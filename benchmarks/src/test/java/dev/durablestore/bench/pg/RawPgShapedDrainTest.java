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
    void theSettleHasTheSettleTimeAndFourArrays() {
        // given the store's grouped settle
        String sql = RawPgShapedDrain.SETTLE;

        // when its markers are counted
        long markers = markers(sql);

        // then the settle time and the four arrays of unnest
        assertThat(markers).isEqualTo(5);
        assertThat(sql).contains("FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[])");
    }

    private static long markers(String sql) {
        return sql.chars().filter(c -> c == '?').count();
    }
}
