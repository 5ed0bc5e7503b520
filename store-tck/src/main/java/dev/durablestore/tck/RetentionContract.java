package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.inState;
import static dev.durablestore.tck.OutboxFixtures.routed;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.PurgeResult;
import dev.durablestore.api.RetentionBacklog;
import dev.durablestore.api.RetentionPolicy;
import dev.durablestore.api.RetentionSweep;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * Contract of retention and purge (D1–D10): which closed workflows a sweep deletes, that it deletes
 * them whole and nothing else, in bounded steps, and the purge of one workflow on demand.
 */
public abstract class RetentionContract extends OutboxContractSupport {

    private static final Duration WEEK = Duration.ofDays(7);
    private static final RetentionPolicy POLICY = RetentionPolicy.closedFor(WEEK);

    // ------------------------------------------------------------------ what is deleted

    @Test
    void D1_D5_an_expired_closed_workflow_is_deleted_whole_events_timers_and_rows() {
        // given a workflow closed 8 days ago with a settled row, a timer, and an open workflow
        WorkflowId w = workflow(1);
        OutboxRow done = inState(row(w, 0, now()), OutboxStatus.DONE, null, 1);
        close(w, daysAgo(8), done);
        store.scheduleTimer(w, TimerId.named("reminder"), now()).block(TIMEOUT);
        WorkflowId open = workflow(2);
        start(open, daysAgo(30));

        // when one step sweeps with a 7-day retention
        RetentionSweep step = sweep(POLICY, 100, null);

        // then the closed workflow is gone whole: history empty, head 0, no timer, no row
        assertThat(step.workflowsDeleted()).isEqualTo(1);
        assertThat(step.eventsDeleted()).isEqualTo(2);
        assertThat(step.timersDeleted()).isEqualTo(1);
        assertThat(step.outboxRowsDeleted()).isEqualTo(1);
        assertThat(step.more()).isFalse();
        assertThat(history(w)).isEmpty();
        assertThat(store.readHead(w).block(TIMEOUT)).isZero();
        assertThat(store.expiredTimers(now().plus(Duration.ofDays(1)))
                        .map(TimerEntry::workflowId)
                        .collectList()
                        .block(TIMEOUT))
                .doesNotContain(w);
        assertAbsent(done.dispatchKey());
        assertThat(store.listWorkflowIds().collectList().block(TIMEOUT)).containsExactly(open);
    }

    @Test
    void D1_D5_every_terminal_kind_closes_a_workflow() {
        // given five workflows, each ended 8 days ago by another terminal kind
        List<WorkflowId> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            WorkflowId w = workflow(i + 1);
            ids.add(w);
            TestEvents ev = TestEvents.of(w).at(daysAgo(9));
            Event started = ev.started("order");
            ev.at(daysAgo(8));
            Event end = switch (i) {
                case 0 -> ev.completed();
                case 1 -> ev.failed("boom");
                case 2 -> ev.cancelled("user");
                case 3 -> ev.timedOut("deadline");
                default -> ev.continuedAsNew();
            };
            store.append(w, List.of(started, end), 0).block(TIMEOUT);
        }

        // when a pass sweeps them
        RetentionSweep step = sweep(POLICY, 100, null);

        // then every one is deleted
        assertThat(step.workflowsDeleted()).isEqualTo(5);
        assertThat(store.listWorkflowIds().collectList().block(TIMEOUT)).isEmpty();
    }

    @Test
    void D5_a_workflow_closed_for_its_retention_or_less_is_kept() {
        // given one workflow closed exactly 7 days ago and one closed 6 days ago
        WorkflowId atBoundary = workflow(1);
        WorkflowId recent = workflow(2);
        close(atBoundary, now().minus(WEEK));
        close(recent, daysAgo(6));

        // when swept with a 7-day retention
        RetentionSweep step = sweep(POLICY, 100, null);

        // then neither is deleted: a workflow expires only once closed strictly longer than its retention
        assertThat(step.workflowsDeleted()).isZero();
        assertThat(history(atBoundary)).hasSize(2);
        assertThat(history(recent)).hasSize(2);
    }

    @Test
    void D6_open_workflows_are_never_touched_however_old() {
        // given a running, a paused and a resumed workflow, and one with no lifecycle event, all a year old
        WorkflowId running = workflow(1);
        start(running, daysAgo(365));
        WorkflowId paused = workflow(2);
        TestEvents p = TestEvents.of(paused).at(daysAgo(365));
        store.append(paused, List.of(p.started("order"), p.completed(), p.reopened(), p.paused()), 0)
                .block(TIMEOUT);
        WorkflowId resumed = workflow(3);
        TestEvents r = TestEvents.of(resumed).at(daysAgo(365));
        store.append(resumed, List.of(r.started("order"), r.paused(), r.resumed()), 0)
                .block(TIMEOUT);
        WorkflowId noLifecycle = workflow(4);
        TestEvents n = TestEvents.of(noLifecycle).at(daysAgo(365));
        store.append(noLifecycle, List.of(n.activityScheduled(1, "charge")), 0).block(TIMEOUT);

        // when swept with a 1-second retention, and the backlog read
        RetentionPolicy short1 = RetentionPolicy.closedFor(Duration.ofSeconds(1));
        RetentionSweep step = sweep(short1, 100, null);

        // then nothing is deleted and nothing is overdue
        assertThat(step.workflowsDeleted()).isZero();
        assertThat(store.listWorkflowIds().collectList().block(TIMEOUT))
                .containsExactly(running, paused, resumed, noLifecycle);
        assertThat(backlog(short1).overdueWorkflows()).isZero();
    }

    @Test
    void D6_a_closed_workflow_with_a_pending_or_claimed_row_is_kept_until_they_settle() {
        // given two expired closed workflows, one with a pending row and one with a claimed row
        WorkflowId withPending = workflow(1);
        WorkflowId withClaimed = workflow(2);
        OutboxRow pending = row(withPending, 0, daysAgo(1));
        OutboxRow claimed = inState(row(withClaimed, 0, daysAgo(1)), OutboxStatus.CLAIMED, daysAgo(1), 1);
        close(withPending, daysAgo(8), pending);
        close(withClaimed, daysAgo(8), claimed);

        // when swept
        RetentionSweep step = sweep(POLICY, 100, null);

        // then both are kept, and the backlog counts them as overdue and held by live rows
        assertThat(step.workflowsDeleted()).isZero();
        assertThat(history(withPending)).hasSize(2);
        assertThat(history(withClaimed)).hasSize(2);
        RetentionBacklog held = backlog(POLICY);
        assertThat(held.overdueWorkflows()).isEqualTo(2);
        assertThat(held.heldByLiveRows()).isEqualTo(2);

        // when their rows settle, then the next sweep deletes both
        store.settleKeys(List.of(pending.dispatchKey(), claimed.dispatchKey()), Settlement.complete())
                .block(TIMEOUT);
        assertThat(sweep(POLICY, 100, null).workflowsDeleted()).isEqualTo(2);
        assertThat(backlog(POLICY).overdueWorkflows()).isZero();
    }

    @Test
    void D1_D6_a_workflow_reopened_before_the_sweep_is_kept() {
        // given a workflow closed 8 days ago and reopened just now
        WorkflowId w = workflow(1);
        close(w, daysAgo(8));
        TestEvents ev = TestEvents.of(w, 2).at(now());
        store.append(w, List.of(ev.reopened()), 2).block(TIMEOUT);

        // when swept
        RetentionSweep step = sweep(POLICY, 100, null);

        // then it is kept whole
        assertThat(step.workflowsDeleted()).isZero();
        assertThat(history(w)).hasSize(3);
    }

    @Test
    void D2_D3_per_namespace_retention_and_the_longest_wins() {
        // given 1 day for "fast", 30 days for "audit", 7 days otherwise
        RetentionPolicy policy =
                POLICY.withNamespace("fast", Duration.ofDays(1)).withNamespace("audit", Duration.ofDays(30));
        WorkflowId fastOnly = workflow(1);
        WorkflowId fastAndAudit = workflow(2);
        WorkflowId noRows = workflow(3);
        WorkflowId otherNamespace = workflow(4);
        WorkflowId fastRecent = workflow(5);
        close(fastOnly, daysAgo(2), done(routed(fastOnly, 0, now(), "fast", "q", null)));
        close(
                fastAndAudit,
                daysAgo(10),
                done(routed(fastAndAudit, 0, now(), "fast", "q", null)),
                done(routed(fastAndAudit, 1, now(), "audit", "q", null)));
        close(noRows, daysAgo(8));
        close(otherNamespace, daysAgo(6), done(routed(otherNamespace, 0, now(), "other", "q", null)));
        close(fastRecent, now().minus(Duration.ofHours(12)), done(routed(fastRecent, 0, now(), "fast", "q", null)));

        // when swept
        RetentionSweep step = sweep(policy, 100, null);

        // then "fast" alone expired after 1 day, a workflow also in "audit" keeps 30 days, one
        // without rows gets the default 7 days and so does a namespace without its own
        assertThat(step.workflowsDeleted()).isEqualTo(2);
        assertThat(store.listWorkflowIds().collectList().block(TIMEOUT))
                .containsExactly(fastAndAudit, otherNamespace, fastRecent);
        assertThat(policy.retentionFor(List.of("fast", "audit"))).isEqualTo(Duration.ofDays(30));
        assertThat(policy.retentionFor(List.of())).isEqualTo(WEEK);
        assertThat(policy.retentionFor(List.of("fast", "other"))).isEqualTo(WEEK);
    }

    // ------------------------------------------------------------------ steps, idempotence

    @Test
    void D7_a_step_reads_at_most_batch_size_closed_workflows_and_the_next_one_resumes_after_it() {
        // given five expired closed workflows with open ones between them
        List<WorkflowId> closed = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            WorkflowId w = workflow(i);
            if (i % 2 == 1) {
                close(w, daysAgo(8));
                closed.add(w);
            } else {
                start(w, daysAgo(8));
            }
        }

        // when stepping with a batch size of 2
        RetentionSweep first = sweep(POLICY, 2, null);
        RetentionSweep second = sweep(POLICY, 2, first.resumeAfter());
        RetentionSweep third = sweep(POLICY, 2, second.resumeAfter());

        // then each step deletes at most 2, resuming after the last it read, and the third ends the pass
        assertThat(first.workflowsDeleted()).isEqualTo(2);
        assertThat(first.resumeAfter()).isEqualTo(closed.get(1));
        assertThat(second.workflowsDeleted()).isEqualTo(2);
        assertThat(second.resumeAfter()).isEqualTo(closed.get(3));
        assertThat(third.workflowsDeleted()).isEqualTo(1);
        assertThat(third.more()).isFalse();
        assertThat(store.listWorkflowIds().collectList().block(TIMEOUT))
                .hasSize(5)
                .doesNotContainAnyElementsOf(closed);
    }

    @Test
    void D7_a_second_pass_deletes_nothing() {
        // given two expired closed workflows, swept once
        close(workflow(1), daysAgo(8), done(row(workflow(1), 0, now())));
        close(workflow(2), daysAgo(9));
        assertThat(sweep(POLICY, 100, null).workflowsDeleted()).isEqualTo(2);

        // when swept again
        RetentionSweep again = sweep(POLICY, 100, null);

        // then nothing more is deleted
        assertThat(again.workflowsDeleted()).isZero();
        assertThat(again.rowsDeleted()).isZero();
    }

    @Test
    void D7_the_first_step_of_a_pass_prunes_settled_rows_when_the_policy_asks() {
        // given an open workflow with a row settled now, and the clock then 3 days later
        WorkflowId w = workflow(1);
        OutboxRow r = row(w, 0, now());
        start(w, now(), r);
        store.settleKeys(List.of(r.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        clock.advance(Duration.ofDays(3));

        // when swept with settled rows kept 2 days
        RetentionSweep step = sweep(POLICY.withSettledRows(Duration.ofDays(2)), 100, null);

        // then the row is pruned and the open workflow's history kept
        assertThat(step.settledRowsPruned()).isEqualTo(1);
        assertThat(step.workflowsDeleted()).isZero();
        assertAbsent(r.dispatchKey());
        assertThat(history(w)).hasSize(1);
    }

    // ------------------------------------------------------------------ bad input

    @Test
    void D4_a_policy_refuses_bad_input_naming_the_argument() {
        buildRefused(() -> RetentionPolicy.closedFor(null), "closedFor");
        buildRefused(() -> RetentionPolicy.closedFor(Duration.ZERO), "closedFor");
        buildRefused(() -> RetentionPolicy.closedFor(Duration.ofDays(-1)), "closedFor");
        buildRefused(() -> POLICY.withNamespace(null, WEEK), "namespace");
        buildRefused(() -> POLICY.withNamespace("", WEEK), "namespace");
        buildRefused(() -> POLICY.withNamespace("a\u0000b", WEEK), "namespace");
        buildRefused(() -> POLICY.withNamespace("audit", null), "retention");
        buildRefused(() -> POLICY.withNamespace("audit", Duration.ZERO), "retention");
        buildRefused(() -> POLICY.withSettledRows(Duration.ofSeconds(-1)), "settledRows");
        buildRefused(() -> POLICY.retentionFor(null), "workflowNamespaces");
    }

    @Test
    void D10_bad_arguments_are_refused_naming_them_and_delete_nothing() {
        // given an expired closed workflow
        WorkflowId w = workflow(1);
        close(w, daysAgo(8));

        // when each operation is called with a bad argument, then it signals an error naming it
        assertRejected(() -> store.sweepRetention(null, now(), 10, null), "policy");
        assertRejected(() -> store.sweepRetention(POLICY, null, 10, null), "now");
        assertRejected(() -> store.sweepRetention(POLICY, Instant.MAX, 10, null), "now");
        assertRejected(() -> store.sweepRetention(POLICY, now(), 0, null), "batchSize");
        assertRejected(() -> store.purgeWorkflow(null), "workflowId");
        assertRejected(() -> store.retentionBacklog(null, now()), "policy");
        assertRejected(() -> store.retentionBacklog(POLICY, null), "now");

        // and the workflow is untouched
        assertThat(history(w)).hasSize(2);
    }

    // ------------------------------------------------------------------ purge

    @Test
    void D8_purge_deletes_one_workflow_whatever_its_status_and_leaves_the_others() {
        // given a running workflow with a pending row, a claimed row and a timer, and another workflow
        WorkflowId w = workflow(1);
        WorkflowId other = workflow(2);
        OutboxRow a = row(w, 0, now());
        OutboxRow b = row(w, 1, now());
        start(w, now(), a, b);
        store.scheduleTimer(w, TimerId.named("t"), now()).block(TIMEOUT);
        OutboxRow kept = row(other, 0, now().plusSeconds(3600));
        start(other, now(), kept);
        store.scheduleTimer(other, TimerId.named("t"), now()).block(TIMEOUT);
        List<OutboxRow> claimed = claim(1);
        assertThat(claimed).hasSize(1);

        // when purged
        PurgeResult purged = store.purgeWorkflow(w).block(TIMEOUT);

        // then everything of it is gone and the other workflow is whole
        assertThat(purged).isEqualTo(new PurgeResult(w, 1, 1, 2));
        assertThat(history(w)).isEmpty();
        assertThat(store.readHead(w).block(TIMEOUT)).isZero();
        assertAbsent(a.dispatchKey());
        assertAbsent(b.dispatchKey());
        assertThat(history(other)).hasSize(1);
        assertStatus(kept.dispatchKey(), OutboxStatus.PENDING);
        assertThat(store.expiredTimers(now())
                        .map(TimerEntry::workflowId)
                        .collectList()
                        .block(TIMEOUT))
                .containsExactly(other);

        // and the dispatcher holding the purged row finds its claim stale
        StepVerifier.create(store.settle(claimed.get(0), Settlement.complete()))
                .expectError(StaleClaimException.class)
                .verify(TIMEOUT);
    }

    @Test
    void D8_purging_an_unknown_workflow_deletes_nothing_and_a_purged_one_can_start_again() {
        // given a purged workflow
        WorkflowId w = workflow(1);
        start(w, now());
        store.purgeWorkflow(w).block(TIMEOUT);

        // when purged again, then nothing is found
        PurgeResult again = store.purgeWorkflow(w).block(TIMEOUT);
        assertThat(again.found()).isFalse();

        // when appended to at expected sequence 0, then it starts again
        start(w, now());
        assertThat(store.readHead(w).block(TIMEOUT)).isEqualTo(1);
    }

    // ------------------------------------------------------------------ backlog

    @Test
    void D9_the_backlog_counts_overdue_workflows_and_finds_the_oldest_close() {
        // given closed workflows 8, 20 and 9 days ago (the last held by a pending row), one closed
        // 2 days ago and an open one
        close(workflow(1), daysAgo(8));
        close(workflow(2), daysAgo(20));
        close(workflow(3), daysAgo(9), row(workflow(3), 0, now()));
        close(workflow(4), daysAgo(2));
        start(workflow(5), daysAgo(100));

        // when the backlog is read
        RetentionBacklog backlog = backlog(POLICY);

        // then three are overdue, one of them held, the oldest closed 20 days ago
        assertThat(backlog.overdueWorkflows()).isEqualTo(3);
        assertThat(backlog.heldByLiveRows()).isEqualTo(1);
        assertThat(backlog.oldestClosedAt()).isEqualTo(daysAgo(20));
        assertThat(backlog.oldestAge()).isEqualTo(Duration.ofDays(20));
        assertThat(backlog.asOf()).isEqualTo(now());
    }

    @Test
    void D9_an_empty_backlog_has_no_oldest_close() {
        RetentionBacklog backlog = backlog(POLICY);
        assertThat(backlog.overdueWorkflows()).isZero();
        assertThat(backlog.oldestClosedAt()).isNull();
        assertThat(backlog.oldestAge()).isEqualTo(Duration.ZERO);
    }

    // ------------------------------------------------------------------ helpers

    private Instant daysAgo(long days) {
        return now().minus(Duration.ofDays(days));
    }

    private static OutboxRow done(OutboxRow r) {
        return inState(r, OutboxStatus.DONE, null, 1);
    }

    /** A workflow started a minute before {@code closedAt} and completed at it, with the rows. */
    private void close(WorkflowId w, Instant closedAt, OutboxRow... rows) {
        TestEvents ev = TestEvents.of(w).at(closedAt.minusSeconds(60));
        Event started = ev.started("order");
        Event completed = ev.at(closedAt).completed();
        store.appendWithOutbox(w, List.of(started, completed), 0, List.of(rows)).block(TIMEOUT);
    }

    /** A workflow started at {@code at}, running, with the rows. */
    private void start(WorkflowId w, Instant at, OutboxRow... rows) {
        TestEvents ev = TestEvents.of(w).at(at);
        store.appendWithOutbox(w, List.of(ev.started("order")), 0, List.of(rows))
                .block(TIMEOUT);
    }

    private RetentionSweep sweep(RetentionPolicy policy, int batchSize, WorkflowId after) {
        return store.sweepRetention(policy, now(), batchSize, after).block(TIMEOUT);
    }

    private RetentionBacklog backlog(RetentionPolicy policy) {
        return store.retentionBacklog(policy, now()).block(TIMEOUT);
    }

    private List<Event> history(WorkflowId w) {
        return store.readHistory(w).collectList().block(TIMEOUT);
    }
}
