package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.tck.TestClock;
import dev.durablestore.tck.TestEvents;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Group commit of appends on PostgreSQL: concurrent appends share guarded statements, and each
 * still has its own outcome, as if written alone (E3, E4, E13, E21).
 */
class PostgresGroupedAppendTest {

    private final PostgresHarness harness = new PostgresHarness(new TestClock(TestEvents.T0));
    private final AtomicInteger largestGroup = new AtomicInteger();
    private final ReactiveStore store = HarnessSupport.open(
            R2dbcStoreConfig.of(harness.factory())
                    .withNotifyChannel(harness.schema())
                    .withMetrics(new StoreMetrics() {
                        @Override
                        public void batchCommitted(int commands, long nanos) {
                            largestGroup.accumulateAndGet(commands, Math::max);
                        }
                    }),
            new ArrayList<>());

    @AfterEach
    void close() {
        store.close();
        harness.close();
    }

    private static List<OutboxRow> rows(WorkflowId w) {
        Instant now = TestEvents.T0;
        return List.of(
                OutboxRow.pending(w, 0, "work", Payload.json("{\"n\":0}"), now),
                OutboxRow.pending(w, 1, "work", Payload.json("{\"n\":1}"), now));
    }

    @Test
    void E3_E13_concurrent_appends_share_statements_and_each_is_stored_whole_when_it_completes() {
        // given 200 workflows
        Map<WorkflowId, List<Event>> batches = new ConcurrentHashMap<>();
        for (int i = 0; i < 200; i++) {
            WorkflowId w = WorkflowId.random();
            TestEvents ev = TestEvents.of(w);
            batches.put(w, List.of(ev.started("grouped"), ev.signalReceived("go")));
        }

        // when each is appended with two outbox rows, all at once, and each append's completion
        // reads its own history back
        Map<WorkflowId, Long> seenAtCompletion = Flux.fromIterable(batches.entrySet())
                .flatMap(
                        e -> store.appendWithOutbox(e.getKey(), e.getValue(), 0, rows(e.getKey()))
                                .then(store.readHead(e.getKey()))
                                .map(head -> Map.entry(e.getKey(), head)),
                        200)
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .block(HarnessSupport.TIMEOUT);

        // then every append was committed when it completed, whole, rows included
        assertThat(seenAtCompletion)
                .hasSize(200)
                .allSatisfy((w, head) -> assertThat(head).isEqualTo(2L));
        for (Map.Entry<WorkflowId, List<Event>> e : batches.entrySet()) {
            assertThat(store.readHistory(e.getKey()).collectList().block(HarnessSupport.TIMEOUT))
                    .isEqualTo(e.getValue());
        }
        assertThat(store.claim(ClaimRequest.of(1_000)).block(HarnessSupport.TIMEOUT))
                .hasSize(400);
        // and appends shared statements
        assertThat(largestGroup.get()).as("most appends in one statement").isGreaterThan(1);
    }

    @Test
    void E4_in_a_group_only_the_appends_with_a_stale_guard_conflict_and_they_stage_nothing() {
        // given 100 started workflows
        List<WorkflowId> workflows = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            WorkflowId w = WorkflowId.random();
            workflows.add(w);
            store.append(w, List.of(TestEvents.of(w).started("guard")), 0).block(HarnessSupport.TIMEOUT);
        }

        // when all are appended to at once, the even ones on the right head (1), the odd ones on
        // a stale head (0)
        List<Mono<Map.Entry<WorkflowId, Throwable>>> attempts = new ArrayList<>();
        for (int i = 0; i < workflows.size(); i++) {
            WorkflowId w = workflows.get(i);
            long expected = i % 2 == 0 ? 1 : 0;
            Event next = TestEvents.of(w, expected).signalReceived("s");
            attempts.add(store.appendWithOutbox(w, List.of(next), expected, rows(w))
                    .then(Mono.<Map.Entry<WorkflowId, Throwable>>empty())
                    .onErrorResume(e -> Mono.just(Map.entry(w, e))));
        }
        Map<WorkflowId, Throwable> failures = Flux.merge(attempts)
                .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                .block(HarnessSupport.TIMEOUT);

        // then exactly the odd ones failed, each with a conflict naming the head 1
        assertThat(failures).hasSize(50);
        for (int i = 0; i < workflows.size(); i++) {
            WorkflowId w = workflows.get(i);
            long head = store.readHead(w).block(HarnessSupport.TIMEOUT);
            if (i % 2 == 0) {
                assertThat(failures).doesNotContainKey(w);
                assertThat(head).isEqualTo(2L);
            } else {
                assertThat(failures.get(w))
                        .isInstanceOfSatisfying(
                                SequenceConflictException.class,
                                e -> assertThat(e.found()).isEqualTo(1L));
                assertThat(head).isEqualTo(1L);
            }
        }
        // and only the successful appends staged their rows
        assertThat(store.claim(ClaimRequest.of(1_000)).block(HarnessSupport.TIMEOUT))
                .hasSize(100);
    }
}
