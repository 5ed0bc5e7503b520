package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.started;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * Argument validation of every outbox operation (X9, X10, S15): a bad argument fails the publisher
 * with an {@code InvalidArgumentException} naming it, nothing is thrown from the calling thread, and
 * nothing in the store changes.
 */
public abstract class OutboxArgumentContract extends OutboxContractSupport {

    private static final ClaimScope SCOPE = ClaimScope.of("default", "default");

    private WorkflowId w;
    private OutboxRow pending;
    private OutboxRow claimed;
    private OutboxRow done;
    private OutboxRow failed;
    private Instant claimedAt;
    private Map<String, Optional<OutboxRowState>> before;

    @BeforeEach
    void stageOneRowPerState() {
        // every test starts from a pending, a claimed, a done and a failed row, one minute after the claim
        w = workflow(1);
        claimed = row(w, 0, now().minusSeconds(10));
        stage(claimed);
        claimedAt = now();
        claim(1);
        pending = row(w, 1, now());
        done = row(w, 2, now());
        failed = row(w, 3, now());
        stage(pending, done, failed);
        store.settleKeys(List.of(done.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        store.settleKeys(List.of(failed.dispatchKey()), Settlement.fail()).block(TIMEOUT);
        before = snapshot(keys());
        clock.advance(Duration.ofMinutes(1));
    }

    @Test
    void X10_appendOutboxBatch_rejects_null_rows_null_elements_out_of_range_instants_and_O6_breaks() {
        // when the batch is null, holds null, holds an out-of-range instant, or breaks O6
        // then each call fails with an invalid argument naming the rows, and nothing changes
        assertRejected(() -> store.appendOutboxBatch(null), "rows");
        assertRejected(() -> store.appendOutboxBatch(Arrays.asList(row(w, 10, now()), null)), "rows");
        assertRejected(() -> store.appendOutboxBatch(List.of(row(w, 10, Instant.MAX))), "row");
        assertRejected(() -> store.appendOutboxBatch(List.of(row(w, 10, Instant.MIN))), "row");
        assertRejected(
                () -> store.appendOutboxBatch(List.of(row(w, 10, now()).withStatus(OutboxStatus.CLAIMED, Instant.MAX))),
                "row");
        assertRejected(
                () -> store.appendOutboxBatch(List.of(row(w, 10, now()).withStatus(OutboxStatus.PENDING, now()))),
                "row");
        assertUnchanged(OutboxRow.dispatchKey(w, 10));
    }

    @Test
    void X10_appendWithOutbox_rejects_bad_rows_and_writes_no_event() {
        // when appendWithOutbox gets a null row list, a null element, an out-of-range instant or an O6 break
        // then each call fails with an invalid argument naming the rows, and neither events nor rows are written
        WorkflowId v = workflow(2);
        assertRejected(() -> store.appendWithOutbox(v, List.of(started(v, 1, now())), 0, null), "rows");
        assertRejected(
                () -> store.appendWithOutbox(
                        v, List.of(started(v, 1, now())), 0, Arrays.asList(row(v, 0, now()), null)),
                "rows");
        assertRejected(
                () -> store.appendWithOutbox(v, List.of(started(v, 1, now())), 0, List.of(row(v, 0, Instant.MAX))),
                "row");
        assertRejected(
                () -> store.appendWithOutbox(
                        v,
                        List.of(started(v, 1, now())),
                        0,
                        List.of(row(v, 0, now()).withStatus(OutboxStatus.CLAIMED, null))),
                "row");
        assertRejected(() -> store.appendWithOutbox(null, List.of(), 0, List.of(row(v, 0, now()))), "workflowId");
        assertRejected(() -> store.appendWithOutbox(v, List.of(), -1, List.of(row(v, 0, now()))), "expectedSeq");
        StepVerifier.create(store.readHead(v)).expectNext(0L).expectComplete().verify(TIMEOUT);
        assertUnchanged(OutboxRow.dispatchKey(v, 0));
    }

    @Test
    void X10_rearmPending_rejects_null_rows_null_elements_and_out_of_range_instants() {
        // when rearmPending gets null, a null element, or an out-of-range visibility (next to a valid row)
        // then each call fails naming the rows, and nothing changes (the done row stays done)
        assertRejected(() -> store.rearmPending(null), "rows");
        assertRejected(() -> store.rearmPending(Arrays.asList(done, null)), "rows");
        assertRejected(() -> store.rearmPending(List.of(done, row(w, 10, Instant.MAX))), "row");
        assertRejected(() -> store.rearmPending(List.of(done.withVisibleAfter(Instant.MAX))), "row");
        assertUnchanged(OutboxRow.dispatchKey(w, 10));
    }

    @Test
    void X10_claim_requests_refuse_a_negative_limit_and_null_holds_when_built_and_a_null_request_is_signalled() {
        // when a claim request is built with a negative limit, a null or null-holding hold set, or a null policy
        // then building it throws naming the argument (a request is no publisher)
        Set<WorkflowId> nullHolding = new HashSet<>();
        nullHolding.add(null);
        buildRefused(() -> ClaimRequest.of(-1), "limit");
        buildRefused(() -> ClaimRequest.of(10).withHeldWorkflows(null), "heldWorkflows");
        buildRefused(() -> ClaimRequest.of(10).withScope(SCOPE).withHeldWorkflows(nullHolding), "heldWorkflows[]");
        buildRefused(() -> ClaimRequest.of(10).withPolicy(null), "policy");

        // when the claim gets no request at all
        // then it signals an invalid argument naming the request
        assertRejected(() -> store.claim(null), "request");

        // and nothing was claimed
        assertUnchanged();
    }

    @Test
    void X10_claimStream_rejects_null_options_as_an_error_signal() {
        // when the claim stream gets null options
        // then it fails with an invalid argument naming the options, and nothing is claimed
        assertRejected(() -> store.claimStream(null), "options");
        assertUnchanged();
    }

    @Test
    void X10_single_row_transitions_reject_null_and_empty_keys_negative_attempts_and_bad_instants() {
        // when settleKeys gets a single null or empty key with any settlement
        // then each call signals an invalid argument naming the key
        for (String key : Arrays.asList(null, "")) {
            for (Settlement settlement : List.of(
                    Settlement.complete(),
                    Settlement.retryAt(1, now()),
                    Settlement.retryAfter(1, Duration.ZERO),
                    Settlement.fail(),
                    Settlement.cancel())) {
                assertRejected(() -> store.settleKeys(Collections.singletonList(key), settlement), "dispatchKeys[0]");
            }
        }

        // when a retry is built with a negative attempt or a null visibility
        // then building it throws naming the argument
        buildRefused(() -> Settlement.retryAt(-1, now()), "nextAttempt");
        buildRefused(() -> Settlement.retryAt(1, null), "visibleAfter");

        // when a retry of one key asks for a visibility the store cannot keep, or no settlement is given
        // then the call signals an invalid argument naming it
        assertRejected(
                () -> store.settleKeys(List.of(pending.dispatchKey()), Settlement.retryAt(1, Instant.MAX)),
                "settlement.visibleAfter");
        assertRejected(
                () -> store.settleKeys(List.of(claimed.dispatchKey()), Settlement.retryAt(1, Instant.MIN)),
                "settlement.visibleAfter");
        assertRejected(() -> store.settleKeys(List.of(pending.dispatchKey()), null), "settlement");

        // then nothing changed
        assertUnchanged();
    }

    @Test
    void X10_cancelWorkflowRows_rejects_a_null_workflow() {
        // when the workflow settle gets null
        // then it fails naming the workflow, and nothing changes
        assertRejected(() -> store.cancelWorkflowRows(null), "workflowId");
        assertUnchanged();
    }

    @Test
    void X10_stale_claims_reject_null_and_out_of_range_instants_and_negative_limits() {
        // when the stale list or re-arm gets a null or out-of-range instant or a negative limit
        assertRejected(() -> store.listStaleClaimed(null, 10), "olderThan");
        assertRejected(() -> store.listStaleClaimed(Instant.MAX, 10), "olderThan");
        assertRejected(() -> store.listStaleClaimed(now(), -1), "limit");
        assertRejected(() -> store.rearmStaleClaimed(null, now(), 10), "olderThan");
        assertRejected(() -> store.rearmStaleClaimed(Instant.MAX, now(), 10), "olderThan");
        assertRejected(() -> store.rearmStaleClaimed(now(), null, 10), "visibleAfter");
        assertRejected(() -> store.rearmStaleClaimed(now(), Instant.MAX, 10), "visibleAfter");
        assertRejected(() -> store.rearmStaleClaimed(now(), now(), -1), "limit");

        // then the claimed row is still claimed
        assertUnchanged();
    }

    @Test
    void X10_heartbeat_rejects_null_rows_and_null_elements() {
        // when heartbeat gets null, or a collection holding null next to the claimed row
        OutboxRow claimedRow = claimedRow();
        assertRejected(() -> store.heartbeat(null), "claimed");
        assertRejected(() -> store.heartbeat(Arrays.asList(claimedRow, null)), "claimed[1]");

        // then nothing changed: the claim was not refreshed
        assertUnchanged();
    }

    @Test
    void X10_W13_heartbeat_rejects_a_row_not_from_a_claim() {
        // when heartbeat gets the pending row, which no claim returned, next to the claimed row
        // then it fails naming the row's token, as a fenced settle does
        assertRejected(() -> store.heartbeat(List.of(claimedRow(), pending)), "claimed[1].claimToken");

        // and nothing changed: the claim was not refreshed
        assertUnchanged();
    }

    @Test
    void X10_redrive_rejects_null_and_empty_keys_and_null_workflows() {
        // when redrive gets a null or empty key, or redriveWorkflow a null workflow
        assertRejected(() -> store.redrive(null, true), "dispatchKey");
        assertRejected(() -> store.redrive("", false), "dispatchKey");
        assertRejected(() -> store.redriveWorkflow(null, true), "workflowId");

        // then the failed row is still failed
        assertUnchanged();
    }

    @Test
    void X10_pruneSettled_rejects_null_and_out_of_range_cutoffs_and_batches_below_one() {
        // when pruning with a null or out-of-range cutoff, or a batch size below 1
        assertRejected(() -> store.pruneSettled(null, 10), "settledBefore");
        assertRejected(() -> store.pruneSettled(Instant.MAX, 10), "settledBefore");
        assertRejected(() -> store.pruneSettled(now().plusSeconds(60), 0), "batchSize");
        assertRejected(() -> store.pruneSettled(now().plusSeconds(60), -5), "batchSize");

        // then no settled row was deleted
        assertUnchanged();
    }

    @Test
    void X10_counts_and_row_state_reject_null_arguments() {
        // when counts, routes and row state get null (or empty) arguments
        List<String> nullHolding = new ArrayList<>();
        nullHolding.add(null);
        assertRejected(() -> store.countInflight(null), "namespace");
        assertRejected(() -> store.countClaimed(null), "namespace");
        assertRejected(() -> store.countClaimedByNamespace(null), "namespaces");
        assertRejected(() -> store.countClaimedByNamespace(nullHolding), "namespaces");
        assertRejected(() -> store.rowState(null), "dispatchKey");
        assertRejected(() -> store.rowState(""), "dispatchKey");

        // then nothing changed
        assertUnchanged();
    }

    @Test
    void X10_a_zero_limit_and_an_empty_collection_are_valid() {
        // when the boundary values that are allowed are passed
        // then each call succeeds and changes nothing
        StepVerifier.create(store.claim(ClaimRequest.of(0)))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.listStaleClaimed(now(), 0).map(OutboxFixtures::withoutToken))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.rearmStaleClaimed(now().plusSeconds(60), now(), 0))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.heartbeat(List.of()))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(
                        store.settleKeys(List.of(pending.dispatchKey()), Settlement.retryAt(0, pending.visibleAfter())))
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(store.countClaimedByNamespace(Set.of()).block(TIMEOUT)).isEmpty();
        assertUnchanged();
    }

    private List<String> keys() {
        return List.of(pending.dispatchKey(), claimed.dispatchKey(), done.dispatchKey(), failed.dispatchKey());
    }

    /** @param extraAbsent keys that must still be absent */
    private void assertUnchanged(String... extraAbsent) {
        assertThat(snapshot(keys())).as("row states after the rejected calls").isEqualTo(before);
        for (String key : extraAbsent) {
            assertAbsent(key);
        }
        // the claimed row still carries its original claim instant (no heartbeat, no re-arm)
        StepVerifier.create(store.listStaleClaimed(claimedAt.plusNanos(1), 10).map(OutboxFixtures::withoutToken))
                .expectNext(claimed.withStatus(OutboxStatus.CLAIMED, claimedAt))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.listStaleClaimed(claimedAt, 10).map(OutboxFixtures::withoutToken))
                .expectComplete()
                .verify(TIMEOUT);
    }

    /** @return the claimed row as a listing of claimed rows returns it, with its claim token */
    private OutboxRow claimedRow() {
        return store.listStaleClaimed(now().plusSeconds(3600), 10).blockFirst(TIMEOUT);
    }
}
