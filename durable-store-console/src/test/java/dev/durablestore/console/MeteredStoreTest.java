package dev.durablestore.console;

import static dev.durablestore.console.ConsoleFixture.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.WorkflowId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.StepVerifier;

/** The meter counts what goes through the store it wraps, whichever call claims or settles. */
class MeteredStoreTest {

    @TempDir
    Path dir;

    private ConsoleFixture fixture;

    @AfterEach
    void close() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void rows_of_a_claim_stream_count_as_claimed_and_their_completion_as_settled() {
        // given a metered store and three rows on a route of their own
        TrafficMeter meter = new TrafficMeter();
        fixture = new ConsoleFixture(dir, meter, false);
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            rows.add(ConsoleFixture.row(WorkflowId.random(), 0, "stream", "q", "work", fixture.clock.instant()));
        }
        fixture.store.appendOutboxBatch(rows).block(TIMEOUT);
        long staged = meter.staged();
        long claimed = meter.claimed();
        long settled = meter.settled();
        // when a claim stream (as the starter's dispatcher uses) takes them and completes each
        StepVerifier.create(fixture.store
                        .claimStream(ClaimStreamOptions.defaults().withScope(ClaimScope.of("stream", "q")))
                        .take(3)
                        .concatMap(row -> fixture.store.complete(row).thenReturn(row)))
                .expectNextCount(3)
                .expectComplete()
                .verify(TIMEOUT);
        // then the meter has them as claimed and settled, and no more staged
        assertThat(meter.claimed() - claimed).isEqualTo(3);
        assertThat(meter.settled() - settled).isEqualTo(3);
        assertThat(meter.staged()).isEqualTo(staged);
    }
}
