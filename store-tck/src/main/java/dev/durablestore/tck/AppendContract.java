package dev.durablestore.tck;

import static dev.durablestore.tck.KitSupport.TIMEOUT;
import static dev.durablestore.tck.KitSupport.append;
import static dev.durablestore.tck.KitSupport.concurrently;
import static dev.durablestore.tck.KitSupport.failure;
import static dev.durablestore.tck.KitSupport.given;
import static dev.durablestore.tck.KitSupport.head;
import static dev.durablestore.tck.KitSupport.history;
import static dev.durablestore.tck.KitSupport.workflowIds;
import static dev.durablestore.tck.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunId;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.test.StepVerifier;

/**
 * Contract group E: appending events under the expected-sequence guard (E2–E13, E17–E21).
 * Durability across instances and reopen (E14, E24, E25) is in {@link DurabilityContract}; argument
 * validation including the envelope check (E11) is in {@link HistoryArgumentContract}.
 *
 * <p>Not covered here, because a portable test cannot provoke them: E15 (normalising a storage
 * failure into a conflict; exercised indirectly by E13/E14 races), E16 (an event that cannot be
 * encoded), E22 (an outbox row failing inside the transaction) and E23 (stores without an outbox).
 */
public abstract class AppendContract extends ContractTestSupport {

    private final WorkflowId w = WorkflowId.random();

    // ------------------------------------------------------------------ E2 head

    @Test
    public void E2_head_of_an_unknown_workflow_is_zero() {
        // when / then
        StepVerifier.create(store.readHead(w)).expectNext(0L).expectComplete().verify(TIMEOUT);
    }

    @Test
    public void E2_C53_head_is_the_largest_stored_seq() {
        // given
        TestEvents ev = TestEvents.of(w);
        // when
        append(store, w, List.of(ev.started("checkout")), 0);
        // then
        assertThat(head(store, w)).isEqualTo(1);
        assertThat(history(store, w)).hasSize(1);
        // when
        append(store, w, List.of(ev.signalReceived("a"), ev.signalReceived("b")), 1);
        // then
        assertThat(head(store, w)).isEqualTo(3);
    }

    // ------------------------------------------------------------------ E3 guard

    @Test
    public void E3_C9_stale_expected_seq_below_the_head_conflicts_and_writes_nothing() {
        // given
        TestEvents ev = TestEvents.of(w);
        Event start = ev.started("checkout");
        given(store, List.of(start));
        // when: a completion that wrongly believes the history is empty
        Event completion = TestEvents.of(w, 1).completed(t(2));
        SequenceConflictException conflict =
                failure(store.append(w, List.of(completion), 0), SequenceConflictException.class);
        // then
        assertThat(conflict).isEqualTo(new SequenceConflictException(0, 1));
        assertThat(conflict.expected()).isZero();
        assertThat(conflict.found()).isEqualTo(1);
        assertThat(history(store, w)).containsExactly(start);
    }

    @Test
    public void E3_C56_stale_expected_seq_with_a_correctly_numbered_batch_conflicts() {
        // given
        TestEvents ev = TestEvents.of(w);
        Event start = ev.started("checkout");
        given(store, List.of(start));
        // when: the signal is numbered seq 2, but the guard says 0
        Event signal = ev.signalReceived("go");
        // then
        StepVerifier.create(store.append(w, List.of(signal), 0))
                .expectErrorSatisfies(e -> assertThat(e).isEqualTo(new SequenceConflictException(0, 1)))
                .verify(TIMEOUT);
        assertThat(history(store, w)).containsExactly(start);
        assertThat(head(store, w)).isEqualTo(1);
    }

    @Test
    public void E3_C57_expected_seq_above_the_head_of_an_empty_workflow_conflicts() {
        // when: seq 1 is appended as if the head were 2
        Event start = TestEvents.of(w).started("checkout");
        SequenceConflictException conflict =
                failure(store.append(w, List.of(start), 2), SequenceConflictException.class);
        // then
        assertThat(conflict).isEqualTo(new SequenceConflictException(2, 0));
        assertThat(history(store, w)).isEmpty();
        assertThat(workflowIds(store)).doesNotContain(w);
    }

    @Test
    public void E3_expected_seq_above_an_existing_head_conflicts() {
        // given
        TestEvents ev = TestEvents.of(w);
        List<Event> stored = List.of(ev.started("checkout"), ev.signalReceived("a"));
        given(store, stored);
        // when
        Event later = TestEvents.of(w, 5).signalReceived("b");
        SequenceConflictException conflict =
                failure(store.append(w, List.of(later), 5), SequenceConflictException.class);
        // then
        assertThat(conflict).isEqualTo(new SequenceConflictException(5, 2));
        assertThat(history(store, w)).isEqualTo(stored);
    }

    // ------------------------------------------------------------------ E4 guard first

    @Test
    public void E4_empty_batch_under_a_stale_guard_conflicts() {
        // given
        given(store, List.of(TestEvents.of(w).started("checkout")));
        // when / then
        assertThat(failure(store.append(w, List.of(), 0), SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(0, 1));
        assertThat(failure(store.append(w, List.of(), 7), SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(7, 1));
    }

    @Test
    public void E4_non_contiguous_batch_under_a_stale_guard_conflicts_rather_than_failing_contiguity() {
        // given
        TestEvents ev = TestEvents.of(w);
        Event start = ev.started("checkout");
        given(store, List.of(start));
        // when: seqs 4 and 9 at expected 0 — both the guard and contiguity are broken
        TestEvents bad = TestEvents.of(w, 3);
        List<Event> batch = List.of(bad.signalReceived("a"), bad.skip(4).signalReceived("b"));
        // then: the guard wins
        assertThat(failure(store.append(w, batch, 0), SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(0, 1));
        assertThat(history(store, w)).containsExactly(start);
    }

    // ------------------------------------------------------------------ E5 empty batch

    @Test
    public void E5_C55_empty_append_changes_nothing() {
        // when
        append(store, w, List.of(), 0);
        // then: no event, head 0, and the workflow does not start to exist
        assertThat(history(store, w)).isEmpty();
        assertThat(head(store, w)).isZero();
        assertThat(workflowIds(store)).doesNotContain(w);
        assertThat(KitSupport.active(store)).doesNotContain(w);
    }

    @Test
    public void E5_empty_append_at_the_head_of_an_existing_history_changes_nothing() {
        // given
        TestEvents ev = TestEvents.of(w);
        List<Event> stored = List.of(ev.started("checkout"), ev.signalReceived("a"));
        given(store, stored);
        // when
        append(store, w, List.of(), 2);
        // then
        assertThat(history(store, w)).isEqualTo(stored);
        assertThat(head(store, w)).isEqualTo(2);
    }

    // ------------------------------------------------------------------ E6 contiguity

    @Test
    public void E6_C58_non_contiguous_batch_fails_with_backend_naming_expected_and_actual_seq() {
        // given: a ten-event history
        TestEvents ev = TestEvents.of(w);
        List<Event> stored = new ArrayList<>();
        stored.add(ev.started("checkout"));
        IntStream.range(0, 9).forEach(i -> stored.add(ev.signalReceived("s" + i)));
        given(store, stored);
        // when: seqs 11, 12, 57 — the first offending event expected 13, actual 57
        List<Event> batch = List.of(
                ev.signalReceived("a"), ev.signalReceived("b"), ev.skip(44).signalReceived("c"));
        BackendException e = failure(store.append(w, batch, 10), BackendException.class);
        // then
        assertThat(e).isNotInstanceOf(SequenceConflictException.class);
        assertThat(e.getMessage())
                .contains("event sequence must be contiguous")
                .contains("13")
                .contains("57");
        assertThat(history(store, w)).isEqualTo(stored);
        assertThat(head(store, w)).isEqualTo(10);
    }

    @Test
    public void E6_C91_first_event_must_be_expected_seq_plus_one() {
        // when: seqs 1 and 5, then a batch that starts at seq 2, then one that starts at seq 0
        TestEvents gap = TestEvents.of(w);
        List<Event> withGap = List.of(gap.started("a"), gap.skip(3).signalReceived("x"));
        List<Event> startsAtTwo = List.of(TestEvents.of(w, 1).started("b"));
        List<Event> startsAtZero = List.of(TestEvents.of(w).skip(-1).started("c"));
        // then
        for (List<Event> batch : List.of(withGap, startsAtTwo, startsAtZero)) {
            BackendException e = failure(store.append(w, batch, 0), BackendException.class);
            assertThat(e).isNotInstanceOf(SequenceConflictException.class);
            assertThat(e.getMessage()).contains("event sequence must be contiguous");
        }
        assertThat(history(store, w)).isEmpty();
        assertThat(workflowIds(store)).doesNotContain(w);
    }

    @Test
    public void E6_repeated_or_already_stored_seq_fails_with_backend() {
        // given
        TestEvents ev = TestEvents.of(w);
        Event start = ev.started("checkout");
        given(store, List.of(start));
        // when: a batch repeating seq 2, and a batch re-using the stored seq 1 under the right guard
        TestEvents again = TestEvents.of(w, 1);
        List<Event> repeated = List.of(again.signalReceived("a"), again.skip(-1).signalReceived("b"));
        List<Event> overlapping = List.of(TestEvents.of(w).signalReceived("dup"));
        // then
        for (List<Event> batch : List.of(repeated, overlapping)) {
            BackendException e = failure(store.append(w, batch, 1), BackendException.class);
            assertThat(e).isNotInstanceOf(SequenceConflictException.class);
            assertThat(e.getMessage()).contains("event sequence must be contiguous");
        }
        assertThat(history(store, w)).containsExactly(start);
    }

    // ------------------------------------------------------------------ E7 all-or-nothing

    @Test
    public void E7_failed_batch_stores_none_of_its_events_and_keeps_the_head() {
        // given
        TestEvents ev = TestEvents.of(w);
        List<Event> stored = List.of(ev.started("checkout"), ev.signalReceived("a"));
        given(store, stored);
        // when: three good events then a gap
        TestEvents next = TestEvents.of(w, 2);
        List<Event> batch = List.of(
                next.signalReceived("b"),
                next.signalReceived("c"),
                next.signalReceived("d"),
                next.skip(3).signalReceived("e"));
        failure(store.append(w, batch, 2), BackendException.class);
        // then: nothing of it is visible, and the guard still expects head 2
        assertThat(history(store, w)).isEqualTo(stored);
        TestEvents retry = TestEvents.of(w, 2);
        List<Event> good = List.of(retry.signalReceived("b"), retry.signalReceived("c"));
        append(store, w, good, 2);
        assertThat(history(store, w)).containsExactly(stored.get(0), stored.get(1), good.get(0), good.get(1));
    }

    // ------------------------------------------------------------------ E8 / E9 success

    @Test
    public void E8_C8_successful_append_advances_the_head_by_the_batch_size() {
        // given
        TestEvents ev = TestEvents.of(w);
        Event start = ev.started("checkout");
        append(store, w, List.of(start), 0);
        // when
        List<Event> batch =
                List.of(ev.activityScheduled(2, "charge"), ev.at(t(3)).completed());
        append(store, w, batch, 1);
        // then
        assertThat(head(store, w)).isEqualTo(3);
        assertThat(history(store, w)).containsExactly(start, batch.get(0), batch.get(1));
    }

    @Test
    public void E8_C54_multi_event_batch_is_stored_with_contiguous_seqs() {
        // when
        TestEvents ev = TestEvents.of(w);
        List<Event> batch = List.of(ev.started("checkout"), ev.signalReceived("a"), ev.signalReceived("b"));
        append(store, w, batch, 0);
        // then
        assertThat(history(store, w)).extracting(Event::seq).containsExactly(1L, 2L, 3L);
        assertThat(head(store, w)).isEqualTo(3);
    }

    @Test
    public void E8_C11_large_history_in_five_batches_round_trips() {
        // given / when: 125 events in batches of 25
        TestEvents ev = TestEvents.of(w);
        List<Event> all = new ArrayList<>();
        for (int b = 0; b < 5; b++) {
            List<Event> batch = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                batch.add(
                        all.isEmpty() && batch.isEmpty()
                                ? ev.started("bulk")
                                : ev.activityScheduled(ev.nextSeq(), "step"));
            }
            append(store, w, batch, b * 25L);
            all.addAll(batch);
        }
        // then
        List<Event> read = history(store, w);
        assertThat(read).hasSize(125).isEqualTo(all);
        assertThat(read).extracting(Event::seq).isSorted().startsWith(1L).endsWith(125L);
        assertThat(head(store, w)).isEqualTo(125);
    }

    @Test
    public void E9_C53_first_append_at_zero_creates_the_workflow() {
        // given
        assertThat(workflowIds(store)).isEmpty();
        // when
        Event start = TestEvents.of(w).started("checkout");
        append(store, w, List.of(start), 0);
        // then
        assertThat(workflowIds(store)).containsExactly(w);
        assertThat(history(store, w)).containsExactly(start);
    }

    // ------------------------------------------------------------------ E10 no semantic validation

    @Test
    public void E10_store_accepts_any_kind_first_and_non_monotonic_record_times() {
        // given: a completion before any start, time running backwards, and a start naming a
        // parent run that never existed
        TestEvents ev = TestEvents.of(w);
        List<Event> odd = List.of(
                ev.at(t(100)).completed(),
                ev.at(t(5)).signalReceived("late"),
                ev.started("weird", RunId.random(), RunId.random(), t(1)),
                ev.at(t(50)).failed("twice"),
                ev.at(t(40)).completed());
        // when
        append(store, w, odd, 0);
        // then
        assertThat(history(store, w)).isEqualTo(odd);
    }

    // ------------------------------------------------------------------ E12 independence

    @Test
    public void E12_appends_to_different_workflows_are_independent() {
        // given
        WorkflowId other = WorkflowId.random();
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("a"), ev.signalReceived("x"), ev.signalReceived("y")));
        // when: the other workflow starts at 0, and a stale append on w fails
        Event otherStart = TestEvents.of(other).started("b");
        append(store, other, List.of(otherStart), 0);
        failure(
                store.append(w, List.of(TestEvents.of(w, 1).signalReceived("stale")), 1),
                SequenceConflictException.class);
        // then: each head is its own
        assertThat(head(store, w)).isEqualTo(3);
        assertThat(head(store, other)).isEqualTo(1);
        assertThat(history(store, other)).containsExactly(otherStart);
        append(store, other, List.of(TestEvents.of(other, 1).completed()), 1);
        assertThat(head(store, w)).isEqualTo(3);
    }

    // ------------------------------------------------------------------ E13 races

    @Test
    public void E13_C10_two_concurrent_first_appends_have_one_winner() {
        // given: two engines both believe the workflow is new
        Event checkout = TestEvents.of(w).started("checkout");
        Event billing = TestEvents.of(w).started("billing");
        // when
        List<Throwable> outcomes = concurrently(
                List.of(() -> store.append(w, List.of(checkout), 0), () -> store.append(w, List.of(billing), 0)));
        // then
        int winner = singleWinner(outcomes);
        assertThat(outcomes.get(1 - winner)).isEqualTo(new SequenceConflictException(0, 1));
        assertThat(history(store, w)).containsExactly(winner == 0 ? checkout : billing);
    }

    @Test
    public void E13_concurrent_appends_on_one_head_have_one_winner() {
        // given: 16 writers each holding a different start for the same new workflow
        List<List<Event>> batches = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            TestEvents ev = TestEvents.of(w);
            batches.add(List.of(ev.started("type-" + i), ev.signalReceived("from-" + i)));
        }
        // when: all 16 append at expected 0 at once
        List<Throwable> outcomes = concurrently(appendsOf(store, batches, 0));
        // then: exactly one wins; the 15 others see the winner's head
        int winner = singleWinner(outcomes);
        assertLosersSawWinnersHead(outcomes, winner, 0, 2);
        assertThat(history(store, w)).isEqualTo(batches.get(winner));
        assertThat(head(store, w)).isEqualTo(2);
    }

    @Test
    public void E13_concurrent_appends_on_an_existing_head_report_the_winners_new_head() {
        // given: a three-event history, and 16 writers with batches of 1 to 16 events at expected 3
        TestEvents prefix = TestEvents.of(w);
        List<Event> stored =
                List.of(prefix.started("checkout"), prefix.signalReceived("a"), prefix.signalReceived("b"));
        given(store, stored);
        List<List<Event>> batches = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            TestEvents ev = TestEvents.of(w, 3);
            List<Event> batch = new ArrayList<>();
            for (int k = 0; k <= i; k++) {
                batch.add(ev.signalReceived("writer-" + i + "-" + k));
            }
            batches.add(batch);
        }
        // when
        List<Throwable> outcomes = concurrently(appendsOf(store, batches, 3));
        // then: found is the winner's new head, 3 + its batch size
        int winner = singleWinner(outcomes);
        long winnersHead = 3 + batches.get(winner).size();
        assertLosersSawWinnersHead(outcomes, winner, 3, winnersHead);
        List<Event> expected = new ArrayList<>(stored);
        expected.addAll(batches.get(winner));
        assertThat(history(store, w)).isEqualTo(expected);
        assertThat(head(store, w)).isEqualTo(winnersHead);
    }

    static List<Supplier<? extends Publisher<?>>> appendsOf(
            ReactiveStore target, List<List<Event>> batches, long expectedSeq) {
        List<Supplier<? extends Publisher<?>>> operations = new ArrayList<>();
        for (List<Event> batch : batches) {
            WorkflowId id = batch.get(0).workflowId();
            operations.add(() -> target.append(id, batch, expectedSeq));
        }
        return operations;
    }

    static int singleWinner(List<Throwable> outcomes) {
        List<Integer> winners = IntStream.range(0, outcomes.size())
                .filter(i -> outcomes.get(i) == null)
                .boxed()
                .toList();
        assertThat(winners)
                .as("exactly one append succeeds; outcomes %s", outcomes)
                .hasSize(1);
        return winners.get(0);
    }

    static void assertLosersSawWinnersHead(List<Throwable> outcomes, int winner, long expected, long winnersHead) {
        for (int i = 0; i < outcomes.size(); i++) {
            if (i != winner) {
                assertThat(outcomes.get(i))
                        .as("loser %d", i)
                        .isInstanceOf(SequenceConflictException.class)
                        .isEqualTo(new SequenceConflictException(expected, winnersHead));
            }
        }
    }

    // ------------------------------------------------------------------ E17–E21 append with outbox

    @Test
    public void E17_C42_append_with_outbox_commits_events_and_rows_together() {
        // given
        TestEvents ev = TestEvents.of(w);
        List<Event> events = List.of(ev.started("checkout"), ev.activityScheduled(2, "charge"));
        OutboxRow row = OutboxRow.pending(w, 2, "charge", TestEvents.json("{\"amount\":5}"), clock.instant());
        // when
        StepVerifier.create(store.appendWithOutbox(w, events, 0, List.of(row)))
                .expectComplete()
                .verify(TIMEOUT);
        // then
        assertThat(history(store, w)).isEqualTo(events);
        StepVerifier.create(store.rowState(row.dispatchKey()))
                .expectNext(new OutboxRowState(OutboxStatus.PENDING, 0, row.visibleAfter()))
                .expectComplete()
                .verify(TIMEOUT);
        List<OutboxRow> claimed = store.claim(ClaimRequest.of(10)).block(TIMEOUT);
        assertThat(claimed).extracting(OutboxRow::dispatchKey).containsExactly(row.dispatchKey());
    }

    @Test
    public void E17_append_with_outbox_under_a_stale_guard_writes_neither_events_nor_rows() {
        // given
        Event start = TestEvents.of(w).started("checkout");
        given(store, List.of(start));
        OutboxRow row = OutboxRow.pending(w, 2, "charge", TestEvents.json("{}"), clock.instant());
        // when
        SequenceConflictException conflict = failure(
                store.appendWithOutbox(w, List.of(TestEvents.of(w, 1).activityScheduled(2, "charge")), 0, List.of(row)),
                SequenceConflictException.class);
        // then
        assertThat(conflict).isEqualTo(new SequenceConflictException(0, 1));
        assertThat(history(store, w)).containsExactly(start);
        StepVerifier.create(store.rowState(row.dispatchKey())).expectComplete().verify(TIMEOUT);
    }

    @Test
    public void E17_append_with_outbox_with_a_non_contiguous_batch_writes_neither() {
        // given
        TestEvents ev = TestEvents.of(w);
        List<Event> batch = List.of(ev.started("checkout"), ev.skip(1).activityScheduled(3, "charge"));
        OutboxRow row = OutboxRow.pending(w, 3, "charge", TestEvents.json("{}"), clock.instant());
        // when
        BackendException e = failure(store.appendWithOutbox(w, batch, 0, List.of(row)), BackendException.class);
        // then
        assertThat(e).isNotInstanceOf(SequenceConflictException.class);
        assertThat(history(store, w)).isEmpty();
        StepVerifier.create(store.rowState(row.dispatchKey())).expectComplete().verify(TIMEOUT);
    }

    @Test
    public void E18_C44_append_with_outbox_and_no_rows_is_a_plain_append() {
        // when
        Event start = TestEvents.of(w).started("checkout");
        StepVerifier.create(store.appendWithOutbox(w, List.of(start), 0, List.of()))
                .expectComplete()
                .verify(TIMEOUT);
        // then
        assertThat(history(store, w)).containsExactly(start);
        assertThat(store.claim(ClaimRequest.of(16)).block(TIMEOUT)).isEmpty();
        // and the guard behaves as append's
        assertThat(failure(
                        store.appendWithOutbox(w, List.of(TestEvents.of(w).completed()), 0, List.of()),
                        SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(0, 1));
    }

    @Test
    public void E19_append_with_outbox_with_no_events_checks_the_guard_and_stores_only_rows() {
        // given
        Event start = TestEvents.of(w).started("checkout");
        given(store, List.of(start));
        OutboxRow staleRow = OutboxRow.pending(w, 1, "stale", TestEvents.json("{}"), clock.instant());
        OutboxRow row = OutboxRow.pending(w, 2, "charge", TestEvents.json("{}"), clock.instant());
        // when: a stale guard
        assertThat(failure(store.appendWithOutbox(w, List.of(), 0, List.of(staleRow)), SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(0, 1));
        // then: nothing staged
        StepVerifier.create(store.rowState(staleRow.dispatchKey()))
                .expectComplete()
                .verify(TIMEOUT);
        // when: the matching guard
        StepVerifier.create(store.appendWithOutbox(w, List.of(), 1, List.of(row)))
                .expectComplete()
                .verify(TIMEOUT);
        // then: the row is stored, the history is unchanged
        StepVerifier.create(store.rowState(row.dispatchKey()))
                .expectNext(new OutboxRowState(OutboxStatus.PENDING, 0, row.visibleAfter()))
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(history(store, w)).containsExactly(start);
        assertThat(head(store, w)).isEqualTo(1);
    }

    @Test
    public void E19_rows_without_events_do_not_make_a_new_workflow_exist() {
        // given
        OutboxRow row = OutboxRow.pending(w, 0, "charge", TestEvents.json("{}"), clock.instant());
        // when
        StepVerifier.create(store.appendWithOutbox(w, List.of(), 0, List.of(row)))
                .expectComplete()
                .verify(TIMEOUT);
        // then
        assertThat(head(store, w)).isZero();
        assertThat(workflowIds(store)).doesNotContain(w);
        StepVerifier.create(store.rowState(row.dispatchKey()))
                .expectNextCount(1)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    public void E20_append_with_outbox_with_both_lists_empty_behaves_like_an_empty_append() {
        // when
        StepVerifier.create(store.appendWithOutbox(w, List.of(), 0, List.of()))
                .expectComplete()
                .verify(TIMEOUT);
        // then
        assertThat(workflowIds(store)).doesNotContain(w);
        assertThat(head(store, w)).isZero();
        // and a stale guard still conflicts
        given(store, List.of(TestEvents.of(w).started("checkout")));
        assertThat(failure(store.appendWithOutbox(w, List.of(), 0, List.of()), SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(0, 1));
    }

    @Test
    public void E21_append_with_outbox_skips_rows_whose_dispatch_key_exists() {
        // given: a row already staged with activity "charge"
        OutboxRow original = OutboxRow.pending(w, 0, "charge", TestEvents.json("{\"v\":1}"), clock.instant());
        StepVerifier.create(store.appendOutboxBatch(List.of(original)))
                .expectComplete()
                .verify(TIMEOUT);
        // when: the append stages the same key again, a fresh row, and that fresh row repeated
        OutboxRow sameKey =
                OutboxRow.pending(w, 0, "different-activity", TestEvents.json("{\"v\":2}"), clock.instant());
        OutboxRow fresh = OutboxRow.pending(w, 1, "ship", TestEvents.json("{\"v\":3}"), clock.instant());
        OutboxRow freshAgain = OutboxRow.pending(w, 1, "ship-again", TestEvents.json("{\"v\":4}"), clock.instant());
        Event start = TestEvents.of(w).started("checkout");
        StepVerifier.create(store.appendWithOutbox(w, List.of(start), 0, List.of(sameKey, fresh, freshAgain)))
                .expectComplete()
                .verify(TIMEOUT);
        // then: the append succeeded, the stored row kept its values, the first fresh row won
        assertThat(history(store, w)).containsExactly(start);
        List<OutboxRow> claimed = store.claim(ClaimRequest.of(10)).block(TIMEOUT);
        assertThat(claimed)
                .extracting(OutboxRow::dispatchKey)
                .containsExactly(original.dispatchKey(), fresh.dispatchKey());
        assertThat(claimed).extracting(OutboxRow::activityType).containsExactly("charge", "ship");
        assertThat(claimed).extracting(OutboxRow::input).containsExactly(original.input(), fresh.input());
    }
}
