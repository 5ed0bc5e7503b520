package dev.durablestore.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunId;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.api.event.WorkflowStarted;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.Option;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Several nodes on one PostgreSQL database: four store instances, each with its own connection pool
 * (as four processes would have), share one schema. Claims must hand every row to exactly one node
 * (O21 across nodes, {@code FOR UPDATE SKIP LOCKED}); appends racing on one head must have exactly one
 * winner, the others failing with the winner's head (E14, E15 through the primary key).
 *
 * <p>The claim test stages {@value #DEFAULT_ROWS} rows, the size issue 6 names (under a minute here);
 * {@code -Ddurablestore.multinode.rows=N} changes it.
 */
class MultiNodeTest {

    private static final int NODES = 4;
    private static final int DEFAULT_ROWS = 50_000;
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private String schema;
    private final List<ConnectionPool> pools = new ArrayList<>();
    private final List<ReactiveStore> nodes = new ArrayList<>();

    @BeforeEach
    void openNodes() {
        schema = "multinode_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        HarnessSupport.execute(PostgresServer.admin(), "CREATE SCHEMA " + schema);
        for (int i = 0; i < NODES; i++) {
            ConnectionPool pool = new ConnectionPool(
                    ConnectionPoolConfiguration.builder(ConnectionFactories.get(PostgresServer.options()
                                    .mutate()
                                    .option(Option.valueOf("schema"), schema)
                                    .build()))
                            .initialSize(0)
                            .maxSize(6)
                            .build());
            pools.add(pool);
            nodes.add(R2dbcReactiveStore.open(R2dbcStoreConfig.of(pool).withNotifyChannel(schema))
                    .block(HarnessSupport.TIMEOUT));
        }
    }

    @AfterEach
    void closeNodes() {
        nodes.forEach(ReactiveStore::close);
        pools.forEach(p -> p.disposeLater().block(HarnessSupport.TIMEOUT));
        HarnessSupport.execute(PostgresServer.admin(), "DROP SCHEMA " + schema + " CASCADE");
    }

    @Test
    void O21_four_nodes_claim_and_complete_every_row_exactly_once() {
        // given many due rows over 100 workflows, staged through node 0
        int count = Integer.getInteger("durablestore.multinode.rows", DEFAULT_ROWS);
        Instant now = Instant.now();
        List<OutboxRow> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            WorkflowId w = new WorkflowId(new UUID(0, 1 + i % 100));
            rows.add(OutboxRow.pending(w, i, "work", Payload.json("{}"), now.minusMillis(i % 1000)));
        }
        Flux.fromIterable(rows)
                .buffer(2_000)
                .concatMap(batch -> nodes.get(0).appendOutboxBatch(batch))
                .blockLast(TIMEOUT);

        // when every node runs a claim stream and completes each row it receives
        Map<String, Integer> claimedBy = new ConcurrentHashMap<>();
        List<String> duplicates = new ArrayList<>();
        ClaimStreamOptions options =
                ClaimStreamOptions.defaults().withMaxBatch(100).withPollInterval(Duration.ofMillis(200));
        List<Flux<String>> streams = new ArrayList<>();
        for (int n = 0; n < NODES; n++) {
            ReactiveStore node = nodes.get(n);
            int id = n;
            streams.add(node.claimStream(options)
                    .doOnNext(r -> {
                        if (claimedBy.putIfAbsent(r.dispatchKey(), id) != null) {
                            synchronized (duplicates) {
                                duplicates.add(r.dispatchKey());
                            }
                        }
                    })
                    .flatMap(
                            r -> node.settleKeys(List.of(r.dispatchKey()), Settlement.complete())
                                    .thenReturn(r.dispatchKey()),
                            32)
                    .subscribeOn(Schedulers.parallel()));
        }
        List<String> completed = Flux.merge(streams).take(count).collectList().block(TIMEOUT);

        // then every row was received by exactly one node and none is left pending or claimed
        assertThat(duplicates).as("rows handed to two nodes").isEmpty();
        assertThat(completed).hasSize(count).doesNotHaveDuplicates();
        Set<String> expected = new HashSet<>();
        rows.forEach(r -> expected.add(r.dispatchKey()));
        assertThat(new HashSet<>(completed)).isEqualTo(expected);
        assertThat(nodes.get(1).countInflight("default").block(HarnessSupport.TIMEOUT))
                .isZero();
        assertThat(new HashSet<>(claimedBy.values())).as("nodes that claimed").hasSizeGreaterThan(1);
    }

    @Test
    void W6_W7_a_node_whose_claims_were_taken_over_by_another_settles_nothing() {
        // given 200 workflows at head 1, each with one row, all claimed by node 0
        int count = 200;
        Instant now = Instant.now();
        for (int i = 0; i < count; i++) {
            WorkflowId w = new WorkflowId(new UUID(7, 1 + i));
            nodes.get(0)
                    .appendWithOutbox(
                            w,
                            List.of(signal(w, 1)),
                            0,
                            List.of(OutboxRow.pending(w, 0, "work", Payload.json("{}"), now.minusSeconds(1))))
                    .block(HarnessSupport.TIMEOUT);
        }
        List<OutboxRow> first = nodes.get(0).claim(ClaimRequest.of(count)).block(HarnessSupport.TIMEOUT);
        assertThat(first).hasSize(count);
        // and node 1's reaper re-armed every one of them, and node 2 claimed them again
        assertThat(nodes.get(1)
                        .rearmStaleClaimed(Instant.now().plusSeconds(1), now.minusSeconds(1), count)
                        .block(HarnessSupport.TIMEOUT))
                .hasSize(count);
        List<OutboxRow> second = nodes.get(2).claim(ClaimRequest.of(count)).block(HarnessSupport.TIMEOUT);
        assertThat(second).hasSize(count);

        // when node 0 commits a step for each of its old claims, and node 2 for each of its own, all at once
        List<Mono<String>> outcomes = new ArrayList<>();
        for (OutboxRow r : first) {
            outcomes.add(step(nodes.get(0), r)
                    .thenReturn("committed")
                    .onErrorResume(e -> Mono.just(e.getClass().getSimpleName())));
        }
        for (OutboxRow r : second) {
            outcomes.add(step(nodes.get(2), r)
                    .thenReturn("committed")
                    .onErrorResume(e -> Mono.just(e.getClass().getSimpleName())));
        }
        List<String> results = Flux.mergeSequential(outcomes).collectList().block(TIMEOUT);

        // then for each workflow exactly one step committed: node 2's where node 0's came later, or
        // node 0's was refused as stale; node 2's can only lose to a conflict if node 0's had won
        assertThat(results.stream().filter("committed"::equals).count()).isEqualTo(count);
        assertThat(results.subList(0, count).stream()
                        .filter("committed"::equals)
                        .count())
                .as("old claims that committed")
                .isZero();
        for (OutboxRow r : second) {
            assertThat(nodes.get(3).readHead(r.workflowId()).block(HarnessSupport.TIMEOUT))
                    .isEqualTo(2L);
        }
        assertThat(nodes.get(3).countClaimed("default").block(HarnessSupport.TIMEOUT))
                .isZero();
    }

    /** A step at head 1 that records the row's outcome and completes it under its claim. */
    private static Mono<Void> step(ReactiveStore node, OutboxRow claimed) {
        WorkflowId w = claimed.workflowId();
        return node.commitStep(dev.durablestore.api.WorkflowStep.builder(w, 1)
                .append(signal(w, 2))
                .complete(claimed)
                .build());
    }

    private static Event signal(WorkflowId w, long seq) {
        return new SignalReceived(new EventEnvelope(seq, Instant.now(), w), "outcome", Payload.json("{}"));
    }

    @Test
    void E14_E15_four_nodes_appending_to_the_same_workflows_have_one_winner_per_head() {
        // given 50 workflows, each started once
        List<WorkflowId> workflows = new ArrayList<>();
        Instant now = Instant.now();
        for (int i = 0; i < 50; i++) {
            WorkflowId w = WorkflowId.random();
            workflows.add(w);
            Event start = new WorkflowStarted(
                    new EventEnvelope(1, now, w),
                    "race",
                    Payload.json("{}"),
                    RunId.random(),
                    null,
                    new PackageVersion("v1"));
            nodes.get(0).append(w, List.of(start), 0).block(HarnessSupport.TIMEOUT);
        }

        for (int round = 0; round < 3; round++) {
            long head = 1 + 2L * round; // every workflow's head before this round
            // when all four nodes append a two-event batch on the same head of every workflow at once
            List<Mono<Outcome>> attempts = new ArrayList<>();
            for (WorkflowId w : workflows) {
                for (int n = 0; n < NODES; n++) {
                    int node = n;
                    List<Event> batch = List.of(signal(w, head + 1, "n" + node), signal(w, head + 2, "n" + node));
                    attempts.add(nodes.get(node)
                            .append(w, batch, head)
                            .subscribeOn(Schedulers.parallel())
                            .thenReturn(new Outcome(w, node, null))
                            .onErrorResume(e -> Mono.just(new Outcome(w, node, e))));
                }
            }
            List<Outcome> outcomes = Flux.merge(attempts).collectList().block(TIMEOUT);

            // then per workflow exactly one node won, every other failed with (head, head + 2),
            // and the history holds exactly the winner's batch
            Map<WorkflowId, List<Event>> tails = Flux.fromIterable(workflows)
                    .flatMap(
                            w -> nodes.get(3)
                                    .readHistoryFrom(w, head + 1)
                                    .collectList()
                                    .map(t -> Map.entry(w, t)),
                            8)
                    .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                    .block(TIMEOUT);
            for (WorkflowId w : workflows) {
                List<Outcome> mine =
                        outcomes.stream().filter(o -> o.workflow.equals(w)).toList();
                List<Outcome> winners =
                        mine.stream().filter(o -> o.error == null).toList();
                assertThat(winners).as("winners on %s at head %s", w, head).hasSize(1);
                for (Outcome loser : mine) {
                    if (loser.error != null) {
                        assertThat(loser.error).isEqualTo(new SequenceConflictException(head, head + 2));
                    }
                }
                String winner = "n" + winners.get(0).node;
                assertThat(tails.get(w))
                        .as("events after head %s of %s", head, w)
                        .extracting(e -> ((SignalReceived) e).name())
                        .containsExactly(winner, winner);
            }
        }
    }

    @Test
    void O52_a_row_staged_on_one_node_wakes_an_idle_stream_on_another_through_notify() {
        // given an idle claim stream on node 3 with demand and a one-hour poll interval
        ClaimStreamOptions hourly = ClaimStreamOptions.defaults().withPollInterval(Duration.ofHours(1));
        OutboxRow row = OutboxRow.pending(WorkflowId.random(), 0, "work", Payload.json("{}"), Instant.now());

        // when node 0 stages a row
        // then node 3 claims it within seconds: the NOTIFY of node 0's commit woke it
        StepVerifier.create(nodes.get(3).claimStream(hourly), 0)
                .thenRequest(1)
                .expectNoEvent(Duration.ofMillis(300))
                .then(() -> nodes.get(0).appendOutboxBatch(List.of(row)).block(HarnessSupport.TIMEOUT))
                .assertNext(claimed -> assertThat(claimed.dispatchKey()).isEqualTo(row.dispatchKey()))
                .thenCancel()
                .verify(Duration.ofSeconds(10));
    }

    @Test
    void with_notifications_off_a_node_is_not_woken_by_another_nodes_commit() {
        // given a fifth node that neither listens nor notifies, with an idle hourly stream
        ReactiveStore quiet = R2dbcReactiveStore.open(R2dbcStoreConfig.of(pools.get(2))
                        .withNotifyChannel(schema)
                        .withNotifications(false))
                .block(HarnessSupport.TIMEOUT);
        nodes.add(quiet);
        ClaimStreamOptions hourly = ClaimStreamOptions.defaults().withPollInterval(Duration.ofHours(1));
        OutboxRow row = OutboxRow.pending(WorkflowId.random(), 0, "work", Payload.json("{}"), Instant.now());

        // when node 0 stages a row, then the quiet node's stream stays idle (it would find it at its poll)
        StepVerifier.create(quiet.claimStream(hourly), 0)
                .thenRequest(1)
                .expectNoEvent(Duration.ofMillis(300))
                .then(() -> nodes.get(0).appendOutboxBatch(List.of(row)).block(HarnessSupport.TIMEOUT))
                .expectNoEvent(Duration.ofSeconds(1))
                .thenCancel()
                .verify(Duration.ofSeconds(10));
        // and the row is still there for anyone who asks
        assertThat(quiet.claim(ClaimRequest.of(10)).block(HarnessSupport.TIMEOUT))
                .extracting(OutboxRow::dispatchKey)
                .containsExactly(row.dispatchKey());
    }

    private static Event signal(WorkflowId w, long seq, String name) {
        return new SignalReceived(new EventEnvelope(seq, Instant.now(), w), name, Payload.json("{}"));
    }

    private record Outcome(WorkflowId workflow, int node, Throwable error) {}
}
