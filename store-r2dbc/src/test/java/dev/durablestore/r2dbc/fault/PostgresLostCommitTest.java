package dev.durablestore.r2dbc.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.TransientBackendException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.api.event.Event;
import dev.durablestore.r2dbc.R2dbcReactiveStore;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import dev.durablestore.r2dbc.fault.CommitCutProxy.Cut;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Option;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Signal;
import reactor.test.StepVerifier;

/**
 * A commit whose answer is lost (X12): for each write of the store, the connection is dropped while
 * the write commits on PostgreSQL, either before the commit reaches the server (nothing committed)
 * or after the server committed (the answer never arrives), by a relay that reads the wire protocol
 * ({@link CommitCutProxy}). In both cases the caller sees the same {@link TransientBackendException};
 * the test then does what {@code docs/reliability.md} tells a caller to do (retry, or read back) and
 * checks that what the write meant is stored exactly once: the history holds each event once, rows
 * are staged once and settled once, a failure is recorded once, and nothing claimed is lost.
 *
 * <p>Its own embedded server ({@link RestartableServer}, {@code synchronous_commit} on), a schema per
 * test, the store on an r2dbc-pool pool reaching the server through the relay. Deterministic: the
 * relay cuts at a protocol message, not at a time, and the tests wait on conditions only.
 */
class PostgresLostCommitTest {

    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final Instant LATER = Instant.parse("2100-01-01T00:00:00Z");
    /** The application name of the store's sessions. */
    private static final String APPLICATION = "lost-commit";

    private static RestartableServer server;
    private static ConnectionFactory admin;

    private String schema;
    private CommitCutProxy proxy;
    private ReactiveStore store;
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        server = RestartableServer.start();
        admin = ConnectionFactories.get(RestartableServer.options(server.port(), "lost-commit-admin"));
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void openStore() {
        schema = "lost_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        sql("CREATE SCHEMA " + schema);
        proxy = new CommitCutProxy(server.port());
        ConnectionFactory factory = ConnectionFactories.get(RestartableServer.options(proxy.port(), APPLICATION)
                .mutate()
                .option(Option.valueOf("schema"), schema)
                .build());
        ConnectionPool pool = new ConnectionPool(ConnectionPoolConfiguration.builder(factory)
                .initialSize(0)
                .maxSize(8)
                .build());
        closeAfter.add(() -> pool.disposeLater().block(BOUND));
        R2dbcReactiveStore opened = R2dbcReactiveStore.open(
                        R2dbcStoreConfig.of(pool).withNotifyChannel(schema))
                .block(BOUND);
        closeAfter.add(opened::close);
        store = opened;
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
        proxy.close();
        assertThat(proxy.errors()).as("failures of the relay").isEmpty();
        sql("DROP SCHEMA " + schema + " CASCADE");
    }

    // ------------------------------------------------------------------ appends: guarded by the expected head

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_an_append_whose_commit_answer_is_lost_is_retried_on_its_head_and_stored_once(Cut cut) {
        // given a new workflow
        WorkflowId w = WorkflowId.random();
        List<Event> events = List.of(WriteLoad.event(w, 1), WriteLoad.event(w, 2));

        // when its first append loses its commit
        loseCommit(cut, store.append(w, events, 0));

        // then the same append again either succeeds (nothing had committed) or fails with a conflict
        // whose head is the expected head plus its events: the first one committed
        retryAppend(cut, store.append(w, events, 0), 0, 2);

        // and the history holds the two events once
        assertHistory(w, 2);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_an_append_with_outbox_rows_whose_commit_answer_is_lost_stages_its_rows_once(Cut cut) {
        // given a workflow at head 1
        WorkflowId w = WorkflowId.random();
        store.append(w, List.of(WriteLoad.event(w, 1)), 0).block(BOUND);
        List<OutboxRow> rows = rows(w, 1, 2);

        // when an append with two rows loses its commit, and is retried on the same head
        loseCommit(cut, store.appendWithOutbox(w, List.of(WriteLoad.event(w, 2)), 1, rows));
        retryAppend(cut, store.appendWithOutbox(w, List.of(WriteLoad.event(w, 2)), 1, rows), 1, 1);

        // then the history and the outbox hold them once
        assertHistory(w, 2);
        assertRows(w, OutboxStatus.PENDING, rows);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_staging_whose_commit_answer_is_lost_is_retried_and_stores_each_row_once(Cut cut) {
        // given rows to stage
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = rows(w, 1, 3);

        // when their staging loses its commit
        loseCommit(cut, store.appendOutboxBatch(rows));

        // then staging them again succeeds (insert-or-ignore by dispatch key) and each is stored once
        StepVerifier.create(store.appendOutboxBatch(rows)).verifyComplete();
        assertRows(w, OutboxStatus.PENDING, rows);
    }

    // ------------------------------------------------------------------ steps: guarded, insert-or-ignore, fenced

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_step_whose_commit_answer_is_lost_is_retried_on_its_head_and_applied_once(Cut cut) {
        // given a workflow at head 1 with a claimed row
        WorkflowId w = WorkflowId.random();
        store.appendWithOutbox(w, List.of(WriteLoad.event(w, 1)), 0, rows(w, 1, 1))
                .block(BOUND);
        OutboxRow claimed = claimAll(1).get(0);
        Instant fireAt = Instant.parse("2030-01-01T00:00:00Z");
        WorkflowStep step = WorkflowStep.builder(w, 1)
                .append(WriteLoad.event(w, 2))
                .stage(rows(w, 2, 2))
                .settle(claimed, Settlement.retryAfter(1, Duration.ofHours(1)).withReason(FailureReason.of("boom")))
                .scheduleTimer(TimerId.named("t"), fireAt)
                .build();

        // when the step loses its commit and is retried
        loseCommit(cut, store.commitStep(step));
        retryAppend(cut, store.commitStep(step), 1, 1);

        // then every part of it is there once: two events, the new row, the retried row with one
        // failure, the timer
        assertHistory(w, 2);
        OutboxRow retried = row(claimed.dispatchKey());
        assertThat(retried.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(retried.attempt()).isEqualTo(1);
        assertThat(retried.failures()).as("failures recorded").hasSize(1);
        assertThat(row(OutboxRow.dispatchKey(w, 2)).status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(store.expiredTimers(fireAt).collectList().block(BOUND))
                .containsExactly(new TimerEntry(w, TimerId.named("t"), fireAt));
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_step_without_events_whose_commit_answer_is_lost_is_fenced_by_its_claims(Cut cut) {
        // given a claimed row
        WorkflowId w = WorkflowId.random();
        store.appendWithOutbox(w, List.of(WriteLoad.event(w, 1)), 0, rows(w, 1, 1))
                .block(BOUND);
        OutboxRow claimed = claimAll(1).get(0);
        WorkflowStep step = WorkflowStep.builder(w, 1).complete(claimed).build();

        // when a step that only completes it loses its commit and is retried
        loseCommit(cut, store.commitStep(step));

        // then the retry succeeds (nothing had committed) or is refused by the fence: the row is
        // no longer claimed under that token because the first one committed
        retryFenced(cut, store.commitStep(step));
        assertThat(row(claimed.dispatchKey()).status()).isEqualTo(OutboxStatus.DONE);
        assertHistory(w, 1);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_step_without_events_or_settles_whose_commit_answer_is_lost_is_sent_again_to_the_same_state(Cut cut) {
        // given a workflow with a timer to cancel
        WorkflowId w = WorkflowId.random();
        store.append(w, List.of(WriteLoad.event(w, 1)), 0).block(BOUND);
        Instant fireAt = Instant.parse("2030-01-01T00:00:00Z");
        store.scheduleTimer(w, TimerId.named("old"), fireAt).block(BOUND);
        WorkflowStep step = WorkflowStep.builder(w, 1)
                .stage(rows(w, 1, 2))
                .cancelTimer(TimerId.named("old"))
                .scheduleTimer(TimerId.named("new"), fireAt)
                .build();

        // when a step that only stages rows and changes timers loses its commit, and is sent again
        loseCommit(cut, store.commitStep(step));
        StepVerifier.create(store.commitStep(step)).verifyComplete();

        // then its rows are staged once and its timers are as one step leaves them
        assertRows(w, OutboxStatus.PENDING, rows(w, 1, 2));
        assertThat(store.expiredTimers(fireAt).collectList().block(BOUND))
                .containsExactly(new TimerEntry(w, TimerId.named("new"), fireAt));
        assertHistory(w, 1);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_timer_whose_commit_answer_is_lost_is_scheduled_again_and_stored_once(Cut cut) {
        // given a timer to schedule
        WorkflowId w = WorkflowId.random();
        Instant fireAt = Instant.parse("2030-01-01T00:00:00Z");

        // when scheduling it loses its commit, then it is scheduled again
        loseCommit(cut, store.scheduleTimer(w, TimerId.named("t"), fireAt));
        StepVerifier.create(store.scheduleTimer(w, TimerId.named("t"), fireAt)).verifyComplete();

        // then it is stored once
        assertThat(store.expiredTimers(fireAt).collectList().block(BOUND))
                .containsExactly(new TimerEntry(w, TimerId.named("t"), fireAt));
    }

    // ------------------------------------------------------------------ claims: not idempotent, the reaper re-arms

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_claim_whose_commit_answer_is_lost_strands_its_rows_until_they_are_rearmed(Cut cut) {
        // given three due rows
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = rows(w, 1, 3);
        store.appendOutboxBatch(rows).block(BOUND);

        // when a claim loses its commit
        loseCommit(cut, store.claim(ClaimRequest.of(10)));

        // then a claim again gets the rows (nothing had committed) or none of them: they are claimed
        // under a token nobody saw, until the lease reaper re-arms them as stale
        List<OutboxRow> again = store.claim(ClaimRequest.of(10)).block(BOUND);
        if (cut == Cut.AFTER_COMMIT) {
            assertThat(again).isEmpty();
            assertThat(store.listStaleClaimed(LATER, 10).collectList().block(BOUND))
                    .hasSize(3);
            assertThat(store.rearmStaleClaimed(LATER, Instant.now(), 10).block(BOUND))
                    .hasSize(3);
            again = store.claim(ClaimRequest.of(10)).block(BOUND);
        }
        assertThat(again).extracting(OutboxRow::dispatchKey).containsExactlyInAnyOrderElementsOf(keys(rows));

        // and each row is then completed once
        Flux.fromIterable(again).concatMap(store::complete).blockLast(BOUND);
        assertRows(w, OutboxStatus.DONE, rows);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_claim_stream_whose_claim_answer_is_lost_delivers_every_row_once_after_the_rearm(Cut cut) {
        // given three due rows and a stream about to claim them, whose subscriber asks for more
        // rows than are due (so its first claim takes all three)
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = rows(w, 1, 3);
        store.appendOutboxBatch(rows).block(BOUND);
        Map<String, Integer> delivered = new ConcurrentHashMap<>();
        proxy.arm(cut, CommitCutProxy.WRITES);

        // when the stream's first claim loses its commit
        Disposable stream = store.claimStream(ClaimStreamOptions.defaults().withPollInterval(Duration.ofMillis(100)))
                .flatMap(r -> store.complete(r).thenReturn(r), 16)
                .subscribe(r -> delivered.merge(r.dispatchKey(), 1, Integer::sum));
        closeAfter.add(stream::dispose);
        Await.until("the stream's claim was cut", () -> !proxy.cuts().isEmpty());
        awaitCutTransactionEnded();

        // then the stream signals nothing and claims again at its poll interval: it finds the rows
        // (nothing had committed), or none, as the lost claim took them all; those stay claimed,
        // unseen, until the lease reaper re-arms them, and the stream claims them then
        if (cut == Cut.AFTER_COMMIT) {
            assertThat(count(OutboxStatus.CLAIMED))
                    .as("rows claimed by the lost claim")
                    .isEqualTo(3);
            assertThat(delivered).isEmpty();
            assertThat(store.rearmStaleClaimed(LATER, Instant.now(), 10).block(BOUND))
                    .hasSize(3);
        }

        // and each row is delivered and completed once
        Await.until("every row is done", () -> count(OutboxStatus.DONE) == rows.size());
        assertThat(delivered)
                .containsOnlyKeys(keys(rows))
                .allSatisfy(
                        (key, n) -> assertThat(n).as("deliveries of %s", key).isEqualTo(1));
    }

    // ------------------------------------------------------------------ settles: fenced by the claim token

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_fenced_settle_whose_commit_answer_is_lost_is_refused_as_stale_once_it_committed(Cut cut) {
        // given a claimed row
        WorkflowId w = WorkflowId.random();
        OutboxRow claimed = stageAndClaim(rows(w, 1, 1)).get(0);
        Settlement retry = Settlement.retryAfter(1, Duration.ofHours(1)).withReason(FailureReason.of("boom"));

        // when a fenced retry of it loses its commit
        loseCommit(cut, store.settle(claimed, retry));

        // then the settle again succeeds (nothing had committed) or is refused by the fence (the
        // claim was settled: by the first try); either way the row is retried once, one failure
        retryFenced(cut, store.settle(claimed, retry));
        OutboxRow stored = row(claimed.dispatchKey());
        assertThat(stored.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(stored.attempt()).isEqualTo(1);
        assertThat(stored.failures()).as("failures recorded").hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_complete_whose_commit_answer_is_lost_leaves_the_row_done_once(Cut cut) {
        // given a claimed row
        WorkflowId w = WorkflowId.random();
        OutboxRow claimed = stageAndClaim(rows(w, 1, 1)).get(0);

        // when completing it loses its commit
        loseCommit(cut, store.complete(claimed));

        // then the second complete succeeds, or is refused by the fence; the row is done
        retryFenced(cut, store.complete(claimed));
        assertThat(state(claimed.dispatchKey()).status()).isEqualTo(OutboxStatus.DONE);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_heartbeat_whose_commit_answer_is_lost_is_sent_again_and_keeps_the_claim(Cut cut) {
        // given a claimed row
        WorkflowId w = WorkflowId.random();
        OutboxRow claimed = stageAndClaim(rows(w, 1, 1)).get(0);

        // when its heartbeat loses its commit, then it beats again
        loseCommit(cut, store.heartbeat(List.of(claimed)));

        // then the heartbeat refreshes it (the claim is still the dispatcher's) and the settle applies
        StepVerifier.create(store.heartbeat(List.of(claimed)))
                .expectNext(List.of(claimed.dispatchKey()))
                .verifyComplete();
        StepVerifier.create(store.complete(claimed)).verifyComplete();
    }

    // ------------------------------------------------------------------ grouped writes: one answer lost for all

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_lost_answer_fails_every_append_of_its_group_and_each_retry_on_its_head_stores_it_once(Cut cut) {
        // given four new workflows
        List<WorkflowId> workflows =
                IntStream.range(0, 4).mapToObj(i -> WorkflowId.random()).toList();

        // when their appends, made in one event-loop task so that they share one grouped statement,
        // lose that statement's commit
        // then every caller of the group sees the lost connection
        loseGroupCommit(
                cut,
                workflows.get(0),
                workflows.stream()
                        .map(w -> store.append(w, List.of(WriteLoad.event(w, 1)), 0))
                        .toList());

        // and each append retried on its head is stored once
        for (WorkflowId w : workflows) {
            retryAppend(cut, store.append(w, List.of(WriteLoad.event(w, 1)), 0), 0, 1);
            assertHistory(w, 1);
        }
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_lost_answer_fails_every_settle_of_its_group_and_each_row_is_settled_once(Cut cut) {
        // given four claimed rows
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = rows(w, 1, 4);
        List<OutboxRow> claimed = stageAndClaim(rows);

        // when their completes, made in one event-loop task so that they share one grouped
        // statement, lose that statement's commit
        // then every caller of the group sees the lost connection
        loseGroupCommit(cut, w, claimed.stream().map(store::complete).toList());

        // and each complete again succeeds or is refused by the fence; each row is done once
        for (OutboxRow r : claimed) {
            retryFenced(cut, store.complete(r));
        }
        assertRows(w, OutboxStatus.DONE, rows);
    }

    // ------------------------------------------------------------------ operator writes

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_settling_keys_whose_commit_answer_is_lost_is_settled_again_as_a_no_op(Cut cut) {
        // given two claimed rows
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = rows(w, 1, 2);
        stageAndClaim(rows);

        // when completing them by key loses its commit, and they are completed again by key
        loseCommit(cut, store.settleKeys(keys(rows), Settlement.complete()));
        StepVerifier.create(store.settleKeys(keys(rows), Settlement.complete())).verifyComplete();

        // then both are done once
        assertRows(w, OutboxStatus.DONE, rows);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_retry_by_key_whose_commit_answer_is_lost_is_read_back_before_it_is_sent_again(Cut cut) {
        // given a claimed row
        WorkflowId w = WorkflowId.random();
        String key = stageAndClaim(rows(w, 1, 1)).get(0).dispatchKey();
        Settlement retry = Settlement.retryAfter(1, Duration.ofHours(1)).withReason(FailureReason.of("boom"));

        // when a retry by key loses its commit
        loseCommit(cut, store.settleKeys(List.of(key), retry));

        // then its row state tells whether it committed (pending at the new attempt): it is sent again
        // only if not, since a retry by key applies to any live row again
        OutboxRowState state = state(key);
        if (cut == Cut.AFTER_COMMIT) {
            assertThat(state.status()).isEqualTo(OutboxStatus.PENDING);
            assertThat(state.attempt()).isEqualTo(1);
        } else {
            assertThat(state.status()).isEqualTo(OutboxStatus.CLAIMED);
            store.settleKeys(List.of(key), retry).block(BOUND);
        }

        // and the row is retried once, with one failure
        OutboxRow stored = row(key);
        assertThat(stored.attempt()).isEqualTo(1);
        assertThat(stored.failures()).as("failures recorded").hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_cancelling_a_workflows_rows_whose_commit_answer_is_lost_is_sent_again(Cut cut) {
        // given a workflow with two pending rows
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = rows(w, 1, 2);
        store.appendOutboxBatch(rows).block(BOUND);

        // when cancelling them loses its commit, and they are cancelled again
        loseCommit(cut, store.cancelWorkflowRows(w));
        List<String> again = store.cancelWorkflowRows(w).block(BOUND);

        // then the second answer names what it changed: both (nothing had committed) or none
        assertThat(again).isEqualTo(cut == Cut.AFTER_COMMIT ? List.of() : keys(rows));
        assertRows(w, OutboxStatus.CANCELLED, rows);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_a_redrive_whose_commit_answer_is_lost_answers_false_once_it_committed(Cut cut) {
        // given a dead-lettered row
        WorkflowId w = WorkflowId.random();
        OutboxRow claimed = stageAndClaim(rows(w, 1, 1)).get(0);
        store.settle(claimed, Settlement.fail()).block(BOUND);

        // when its redrive loses its commit, and it is redriven again
        loseCommit(cut, store.redrive(claimed.dispatchKey(), true));

        // then the second redrive answers true (nothing had committed) or false (it is no longer
        // failed: the first one committed), and the row is pending at attempt 0 either way
        StepVerifier.create(store.redrive(claimed.dispatchKey(), true))
                .expectNext(cut == Cut.BEFORE_COMMIT)
                .verifyComplete();
        assertThat(state(claimed.dispatchKey()).status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(state(claimed.dispatchKey()).attempt()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_redriving_a_workflow_whose_commit_answer_is_lost_is_sent_again(Cut cut) {
        // given a workflow with two dead-lettered rows
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = rows(w, 1, 2);
        store.appendOutboxBatch(rows).block(BOUND);
        store.settleKeys(keys(rows), Settlement.fail()).block(BOUND);

        // when redriving them loses its commit, and they are redriven again
        loseCommit(cut, store.redriveWorkflow(w, true));
        List<String> again = store.redriveWorkflow(w, true).block(BOUND);

        // then the second answer names the rows it redrove: both, or none; both are pending
        assertThat(again).isEqualTo(cut == Cut.AFTER_COMMIT ? List.of() : keys(rows));
        assertRows(w, OutboxStatus.PENDING, rows);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_rearming_rows_whose_commit_answer_is_lost_is_sent_again(Cut cut) {
        // given two claimed rows
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = rows(w, 1, 2);
        stageAndClaim(rows);

        // when re-arming them loses its commit, and they are re-armed again
        loseCommit(cut, store.rearmPending(rows));
        StepVerifier.create(store.rearmPending(rows)).verifyComplete();

        // then both are pending, once
        assertRows(w, OutboxStatus.PENDING, rows);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_rearming_stale_claims_whose_commit_answer_is_lost_is_sent_again(Cut cut) {
        // given two claimed rows
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = rows(w, 1, 2);
        stageAndClaim(rows);

        // when re-arming them as stale loses its commit, and it is sent again
        loseCommit(cut, store.rearmStaleClaimed(LATER, Instant.now(), 10));
        List<OutboxRow> again =
                store.rearmStaleClaimed(LATER, Instant.now(), 10).block(BOUND);

        // then the second answer holds both (nothing had committed) or none; both are pending
        assertThat(again).hasSize(cut == Cut.AFTER_COMMIT ? 0 : 2);
        assertRows(w, OutboxStatus.PENDING, rows);
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void X12_pruning_whose_commit_answer_is_lost_is_sent_again_and_deletes_the_rest(Cut cut) {
        // given three settled rows
        WorkflowId w = WorkflowId.random();
        List<OutboxRow> rows = rows(w, 1, 3);
        store.appendOutboxBatch(rows).block(BOUND);
        store.settleKeys(keys(rows), Settlement.complete()).block(BOUND);

        // when a prune in batches of two loses the commit of its first batch, and is sent again
        loseCommit(cut, store.pruneSettled(LATER, 2));
        Long again = store.pruneSettled(LATER, 2).block(BOUND);

        // then the second prune deletes what is left: one row (the first batch had committed) or three
        assertThat(again).isEqualTo(cut == Cut.AFTER_COMMIT ? 1L : 3L);
        assertThat(store.listOutbox(OutboxQuery.all(10).withWorkflowId(w))
                        .collectList()
                        .block(BOUND))
                .isEmpty();
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Arms the relay and runs one write, which must fail with a {@link TransientBackendException}
     * because the relay dropped its connection at its commit.
     */
    private void loseCommit(Cut cut, Mono<?> write) {
        proxy.arm(cut, CommitCutProxy.WRITES);
        StepVerifier.create(write)
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(TransientBackendException.class))
                .verify(BOUND);
        assertThat(proxy.cuts())
                .as("the relay's cuts")
                .singleElement()
                .asString()
                .startsWith(cut == Cut.AFTER_COMMIT ? "after the commit" : "before the commit");
        awaitCutTransactionEnded();
    }

    /**
     * Waits until no session of the store has a transaction that wrote: a transaction whose commit
     * was cut before it reached the server holds its row locks until the server notices the closed
     * connection and rolls it back, and a retry meanwhile would wait for them (or, with
     * {@code SKIP LOCKED}, pass the rows over).
     */
    private static void awaitCutTransactionEnded() {
        Await.until(
                "the server ended the cut transaction",
                () -> serverCount("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + APPLICATION
                                + "' AND backend_xid IS NOT NULL")
                        == 0);
    }

    /**
     * Arms the relay and subscribes the writes in one task of the driver's event loop (in the answer
     * to a read of {@code any}'s head), so that the store groups them into one statement, whose
     * commit the relay cuts; checks that every caller sees a {@link TransientBackendException}.
     */
    private void loseGroupCommit(Cut cut, WorkflowId any, List<Mono<Void>> writes) {
        proxy.arm(cut, CommitCutProxy.WRITES);
        List<Signal<Void>> outcomes = store.readHead(any)
                .flatMapMany(head -> Flux.fromIterable(writes).flatMap(Mono::materialize))
                .collectList()
                .block(BOUND);
        assertThat(proxy.cuts()).as("the relay's cuts").hasSize(1);
        awaitCutTransactionEnded();
        assertThat(outcomes)
                .hasSize(writes.size())
                .allSatisfy(s -> assertThat(s.getThrowable()).isInstanceOf(TransientBackendException.class));
    }

    /**
     * Retries an append (or step) as the docs say: it succeeds when the first try did not commit, or
     * fails with a conflict whose head is {@code expected + events} when it did.
     */
    private static void retryAppend(Cut cut, Mono<Void> retry, long expected, long events) {
        StepVerifier.FirstStep<Void> again = StepVerifier.create(retry);
        if (cut == Cut.AFTER_COMMIT) {
            again.expectErrorSatisfies(
                            e -> assertThat(e).isEqualTo(new SequenceConflictException(expected, expected + events)))
                    .verify(BOUND);
        } else {
            again.verifyComplete();
        }
    }

    private void assertHistory(WorkflowId w, long head) {
        assertThat(store.readHistory(w)
                        .map(e -> e.envelope().seq())
                        .collectList()
                        .block(BOUND))
                .as("the history of %s", w)
                .isEqualTo(LongStream.rangeClosed(1, head).boxed().toList());
    }

    private void assertRows(WorkflowId w, OutboxStatus status, List<OutboxRow> expected) {
        List<OutboxRow> stored = store.listOutbox(OutboxQuery.all(100).withWorkflowId(w))
                .collectList()
                .block(BOUND);
        assertThat(stored).extracting(OutboxRow::dispatchKey).containsExactlyElementsOf(keys(expected));
        assertThat(stored).extracting(OutboxRow::status).containsOnly(status);
    }

    /**
     * Sends a fenced write again (a settle, or a step that settles without events): it succeeds when
     * the first try did not commit, or fails with {@link StaleClaimException} when it did.
     */
    private static void retryFenced(Cut cut, Mono<Void> retry) {
        StepVerifier.FirstStep<Void> again = StepVerifier.create(retry);
        if (cut == Cut.AFTER_COMMIT) {
            again.expectError(StaleClaimException.class).verify(BOUND);
        } else {
            again.verifyComplete();
        }
    }

    /** Stages the rows and claims every one of them. */
    private List<OutboxRow> stageAndClaim(List<OutboxRow> rows) {
        store.appendOutboxBatch(rows).block(BOUND);
        return claimAll(rows.size());
    }

    private List<OutboxRow> claimAll(int n) {
        List<OutboxRow> claimed = store.claim(ClaimRequest.of(100)).block(BOUND);
        assertThat(claimed).hasSize(n);
        return claimed;
    }

    private long count(OutboxStatus status) {
        return store.listOutbox(OutboxQuery.all(100).withStatus(status)).count().block(BOUND);
    }

    private OutboxRow row(String key) {
        return store.listOutbox(OutboxQuery.all(1).withDispatchKey(key)).blockFirst(BOUND);
    }

    private OutboxRowState state(String key) {
        return store.rowState(key).block(BOUND);
    }

    private static List<OutboxRow> rows(WorkflowId w, long first, long last) {
        Instant now = Instant.now();
        List<OutboxRow> rows = new ArrayList<>();
        for (long ordinal = first; ordinal <= last; ordinal++) {
            rows.add(OutboxRow.pending(w, ordinal, "work", Payload.json("{}"), now));
        }
        return rows;
    }

    private static List<String> keys(List<OutboxRow> rows) {
        return rows.stream().map(OutboxRow::dispatchKey).sorted().toList();
    }

    /** @return the count a {@code SELECT count(*)} answers, on a plain connection to the server */
    private static long serverCount(String query) {
        return Flux.usingWhen(
                        Mono.from(admin.create()),
                        c -> Flux.from(c.createStatement(query).execute())
                                .flatMap(r -> r.map((row, meta) -> row.get(0, Long.class))),
                        Connection::close)
                .blockLast(BOUND);
    }

    /** Runs one statement on a fresh plain connection to the server (not through the relay). */
    private static void sql(String statement) {
        Flux.usingWhen(
                        Mono.from(admin.create()),
                        c -> Flux.from(c.createStatement(statement).execute()).flatMap(r -> r.getRowsUpdated()),
                        Connection::close)
                .blockLast(BOUND);
    }
}
