package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.tck.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Grouped appends on PostgreSQL (issue 17) keep submission order: appends of one workflow made one
 * after the other without waiting each see the one before committed, though the store writes two
 * groups at once and the appends land in different groups.
 */
class PostgresGroupedAppendOrderTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final TestClock clock = TestClock.atDefaultStart();
    private final List<Integer> batches = new CopyOnWriteArrayList<>();
    private PostgresHarness harness;
    private ReactiveStore store;

    @BeforeEach
    void open() {
        harness = new PostgresHarness(clock);
        store = R2dbcReactiveStore.open(
                        R2dbcStoreConfig.of(harness.factory()).withClock(clock).withMetrics(new StoreMetrics() {
                            @Override
                            public void batchCommitted(int commands, long nanos) {
                                batches.add(commands);
                            }
                        }))
                .block(TIMEOUT);
        assertThat(store).isNotNull();
    }

    @AfterEach
    void close() {
        store.close();
        harness.close();
    }

    @Test
    void pipelined_appends_of_one_workflow_commit_in_submission_order_across_groups() {
        // given 40 workflows, five appends each (expected heads 0 to 4)
        int workflows = 40;
        int perWorkflow = 5;
        List<WorkflowId> ids = new ArrayList<>();
        for (int i = 0; i < workflows; i++) {
            ids.add(WorkflowId.random());
        }
        Instant at = clock.instant();
        // when seq 1 of every workflow, then seq 2 of every workflow, …, are all subscribed at once
        List<Mono<Void>> appends = new ArrayList<>();
        for (int seq = 1; seq <= perWorkflow; seq++) {
            for (WorkflowId w : ids) {
                appends.add(store.append(
                        w,
                        List.of(new SignalReceived(new EventEnvelope(seq, at, w), "poke", Payload.json("{}"))),
                        seq - 1));
            }
        }
        Flux.fromIterable(appends).flatMap(m -> m, appends.size()).then().block(TIMEOUT);

        // then every append committed (none refused as a conflict), over more than one group

        for (WorkflowId w : ids) {
            assertThat(store.readHead(w).block(TIMEOUT)).isEqualTo(perWorkflow);
        }
        assertThat(batches.stream().mapToInt(Integer::intValue).sum()).isEqualTo(workflows * perWorkflow);
        assertThat(batches).as("more than one group").hasSizeGreaterThan(1);
    }
}
