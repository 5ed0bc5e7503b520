package dev.durablestore.bench.pg;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The raw staging statement binds one array per outbox column it names. */
class RawPgStageTest {

    @Test
    void theStatementHasOneArrayMarkerPerColumn() {
        String columns =
                RawPgStage.INSERT.substring(RawPgStage.INSERT.indexOf('(') + 1, RawPgStage.INSERT.indexOf(')'));
        long markers = RawPgStage.INSERT.chars().filter(c -> c == '?').count();

        assertThat(columns.split(",")).hasSize(16);
        assertThat(markers).isEqualTo(16);
        assertThat(RawPgStage.INSERT).endsWith("ON CONFLICT DO NOTHING");
    }
}
