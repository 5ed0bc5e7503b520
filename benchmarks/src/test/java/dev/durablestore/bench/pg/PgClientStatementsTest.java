package dev.durablestore.bench.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.r2dbc.internal.StoreStatements;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The statements PGCLIENT sends every client, and pgjdbc's form of their markers. */
class PgClientStatementsTest {

    private static final Pattern MARKER = Pattern.compile("\\$(\\d+)");

    @Test
    void theClaimHasAValueForEveryMarker() {
        // given / when
        StoreStatements.Bound claim = StoreStatements.claim(1_000L, 7L, 64);

        // then
        assertThat(claim.sql()).contains("FOR UPDATE SKIP LOCKED").contains("next_due");
        assertThat(claim.values()).hasSize(highestMarker(claim.sql()));
        assertThat(claim.values()).contains(64, 7L, OutboxRow.DEFAULT_ROUTE);
    }

    @Test
    void bothArrayFormsOfTheStagingShareOneTextAndDifferOnlyInHowTheArraysTravel() {
        // given
        List<OutboxRowEncoder.Encoded> rows = new OutboxRowEncoder(EventCodec.create())
                .forStaging(Fixtures.pendingRows(Fixtures.workflows(1).get(0), 3, Instant.now()), "rows");

        // when
        StoreStatements.Bound literal = StoreStatements.stage(rows, 5L, StoreStatements.ArrayForm.LITERAL);
        StoreStatements.Bound java = StoreStatements.stage(rows, 5L, StoreStatements.ArrayForm.JAVA);

        // then
        assertThat(java.sql()).isEqualTo(literal.sql()).endsWith("ON CONFLICT DO NOTHING");
        assertThat(literal.values()).hasSize(highestMarker(literal.sql())).hasSameSizeAs(java.values());
        for (int i = 0; i < literal.values().length; i++) {
            Object l = literal.values()[i];
            Object j = java.values()[i];
            if (j instanceof Object[] array) {
                assertThat(array).as("value $%d", i + 1).hasSize(3);
                assertThat(l).as("value $%d", i + 1).asString().startsWith("{").endsWith("}");
            } else {
                assertThat(j).as("value $%d", i + 1).isEqualTo(l);
            }
        }
    }

    @Test
    void aGroupedCompleteNeedsATokenForEveryKey() {
        assertThatThrownBy(() -> StoreStatements.completeAll(List.of("a", "b"), List.of(1L), 5L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2 dispatchKeys but 1 claimTokens");
    }

    @Test
    void pgjdbcGetsOneQuestionMarkPerMarkerAndAMarkerUsedTwiceIsBoundTwice() {
        // given / when
        JdbcPgClient.Translated t = JdbcPgClient.translate("SELECT $2, $1 WHERE x = $2");

        // then
        assertThat(t.sql()).isEqualTo("SELECT ?, ? WHERE x = ?");
        assertThat(t.values()).containsExactly(1, 0, 1);
    }

    private static int highestMarker(String sql) {
        Matcher m = MARKER.matcher(sql);
        int highest = 0;
        while (m.find()) {
            highest = Math.max(highest, Integer.parseInt(m.group(1)));
        }
        return highest;
    }
}
