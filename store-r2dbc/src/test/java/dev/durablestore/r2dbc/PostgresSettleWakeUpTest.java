package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.internal.ClaimStreams;
import dev.durablestore.tck.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * O63/O64/O65 across nodes on PostgreSQL: a settle on one node that frees a workflow or a slot of a
 * capped route (or of a capped node, settled by another process claiming as that node) wakes the waiting streams of the other nodes through {@code NOTIFY}, not at their
 * poll interval. Every stream here polls once an hour, so a row that arrives in seconds arrived
 * because of the other node's settle.
 */
class PostgresSettleWakeUpTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Duration HOUR = Duration.ofHours(1);
    private static final ClaimScope ROUTE = ClaimScope.of("ns", "q");

    private final PostgresHarness harness = new PostgresHarness(TestClock.atDefaultStart());

    @AfterEach
    void close() {
        harness.close();
    }

    private List<OutboxRow> stage(ReactiveStore store, WorkflowId workflow, int n) {
        Instant due = harness.clock().instant().minusSeconds(60);
        List<OutboxRow> rows = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            rows.add(
                    OutboxRow.pending(workflow, i, "a", Payload.json("{}"), due).withRoute("ns", "q", null));
        }
        store.appendOutboxBatch(rows).block(TIMEOUT);
        return rows;
    }

    @Test
    void O64_a_settle_on_another_node_wakes_a_stream_waiting_at_the_cap() {
        // given two nodes, three due rows on a route capped at 1, and node A holding one of them
        ReactiveStore a = harness.open();
        ReactiveStore b = harness.open();
        DispatchPolicy cap = DispatchPolicy.none().withConcurrencyCap(1);
        for (int i = 0; i < 3; i++) {
            assertThat(stage(a, WorkflowId.random(), 1)).hasSize(1);
        }
        List<OutboxRow> held =
                a.claim(ClaimRequest.of(1).withScope(ROUTE).withPolicy(cap)).block(TIMEOUT);
        assertThat(held).hasSize(1);

        // when node B's capped stream (hourly poll) waits, and node A completes its row
        // then B receives the next row without waiting for its poll
        StepVerifier.create(b.claimStream(ClaimStreamOptions.defaults()
                        .withScope(ROUTE)
                        .withPolicy(cap)
                        .withPollInterval(HOUR)))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(300))
                .then(() -> a.complete(held.get(0)).block(TIMEOUT))
                .assertNext(row ->
                        assertThat(row.dispatchKey()).isNotEqualTo(held.get(0).dispatchKey()))
                .thenCancel()
                .verify(TIMEOUT);
    }

    @Test
    void O63_a_settle_on_another_node_wakes_a_serial_stream_waiting_for_the_workflow() {
        // given two nodes and one workflow with two due rows, node A holding its first serially
        ReactiveStore a = harness.open();
        ReactiveStore b = harness.open();
        DispatchPolicy serial = DispatchPolicy.none().withSerialPerWorkflow(true);
        List<OutboxRow> rows = stage(a, WorkflowId.random(), 2);
        List<OutboxRow> held =
                a.claim(ClaimRequest.of(1).withScope(ROUTE).withPolicy(serial)).block(TIMEOUT);
        assertThat(held)
                .extracting(OutboxRow::dispatchKey)
                .containsExactly(rows.get(0).dispatchKey());

        // when node B's serial stream (hourly poll) waits, and node A completes the first row
        // then B receives the workflow's second row without waiting for its poll
        StepVerifier.create(b.claimStream(ClaimStreamOptions.defaults()
                        .withScope(ROUTE)
                        .withPolicy(serial)
                        .withPollInterval(HOUR)))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(300))
                .then(() -> a.complete(held.get(0)).block(TIMEOUT))
                .assertNext(row ->
                        assertThat(row.dispatchKey()).isEqualTo(rows.get(1).dispatchKey()))
                .thenCancel()
                .verify(TIMEOUT);
    }

    @Test
    void O65_a_settle_by_another_instance_of_the_node_wakes_a_stream_waiting_at_its_node_cap() {
        // given two instances (processes) that both claim as node n1, three due rows, and
        // instance A holding one of them under a node cap of 1
        ReactiveStore a = harness.open();
        ReactiveStore b = harness.open();
        ClaimScope n1 = new ClaimScope("ns", "q", "n1");
        DispatchPolicy nodeCap = DispatchPolicy.none().withNodeConcurrencyCap(1);
        for (int i = 0; i < 3; i++) {
            assertThat(stage(a, WorkflowId.random(), 1)).hasSize(1);
        }
        List<OutboxRow> held =
                a.claim(ClaimRequest.of(1).withScope(n1).withPolicy(nodeCap)).block(TIMEOUT);
        assertThat(held).hasSize(1);
        CountDownLatch emptyClaim = new CountDownLatch(1);
        ClaimStreams.ClaimObserver observer = (scope, claim) -> claim.doOnNext(batch -> {
            if (batch.rows().isEmpty()) {
                emptyClaim.countDown();
            }
        });

        // when instance B's node-capped stream (hourly poll) has claimed nothing, at the cap,
        // and instance A completes its row
        // then B receives the next row without waiting for its poll
        StepVerifier.create(ClaimStreams.observedBy(
                        b.claimStream(ClaimStreamOptions.defaults()
                                .withScope(n1)
                                .withPolicy(nodeCap)
                                .withPollInterval(HOUR)),
                        observer))
                .expectSubscription()
                .then(() ->
                        assertThat(await(emptyClaim)).as("B claimed at the cap").isTrue())
                .then(() -> a.complete(held.get(0)).block(TIMEOUT))
                .assertNext(row ->
                        assertThat(row.dispatchKey()).isNotEqualTo(held.get(0).dispatchKey()))
                .thenCancel()
                .verify(TIMEOUT);
    }

    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
