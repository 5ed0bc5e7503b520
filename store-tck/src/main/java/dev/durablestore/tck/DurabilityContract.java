package dev.durablestore.tck;

import static dev.durablestore.tck.AppendContract.appendsOf;
import static dev.durablestore.tck.AppendContract.assertLosersSawWinnersHead;
import static dev.durablestore.tck.AppendContract.singleWinner;
import static dev.durablestore.tck.KitSupport.TIMEOUT;
import static dev.durablestore.tck.KitSupport.active;
import static dev.durablestore.tck.KitSupport.append;
import static dev.durablestore.tck.KitSupport.concurrently;
import static dev.durablestore.tck.KitSupport.expired;
import static dev.durablestore.tck.KitSupport.failure;
import static dev.durablestore.tck.KitSupport.given;
import static dev.durablestore.tck.KitSupport.head;
import static dev.durablestore.tck.KitSupport.history;
import static dev.durablestore.tck.KitSupport.historyFrom;
import static dev.durablestore.tck.KitSupport.wid;
import static dev.durablestore.tck.KitSupport.workflowIds;
import static dev.durablestore.tck.TestEvents.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.SerializationException;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.UndecodableEvent;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Contract groups E and S, durability: several instances on one database (E14, S22), reopening
 * (E24, E25, S6, S24), and stored events that no longer decode (S25, S26). Also X9 for a closed
 * store.
 */
public abstract class DurabilityContract extends ContractTestSupport {

    private final WorkflowId w = WorkflowId.random();

    /** Closes the test's store and opens a new instance on the same database. */
    private ReactiveStore reopen() {
        store.close();
        store = harness.open();
        return store;
    }

    // ------------------------------------------------------------------ E14 / S22 two instances

    @Test
    public void E14_concurrent_appends_through_two_instances_have_one_winner() {
        // given: a second instance on the same database, and 16 writers split across both
        ReactiveStore second = harness.open();
        List<List<Event>> batches = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            TestEvents ev = TestEvents.of(w);
            List<Event> batch = new ArrayList<>();
            batch.add(ev.started("type-" + i));
            for (int k = 0; k < i % 3; k++) {
                batch.add(ev.signalReceived("s" + k));
            }
            batches.add(batch);
        }
        List<Supplier<? extends Publisher<?>>> operations = new ArrayList<>();
        operations.addAll(appendsOf(store, batches.subList(0, 8), 0));
        operations.addAll(appendsOf(second, batches.subList(8, 16), 0));
        // when
        List<Throwable> outcomes = concurrently(operations);
        // then
        int winner = singleWinner(outcomes);
        long winnersHead = batches.get(winner).size();
        assertLosersSawWinnersHead(outcomes, winner, 0, winnersHead);
        assertThat(history(store, w)).isEqualTo(batches.get(winner));
        assertThat(history(second, w)).isEqualTo(batches.get(winner));
        assertThat(head(second, w)).isEqualTo(winnersHead);
    }

    @Test
    public void E14_instances_on_one_database_share_one_guard() {
        // given
        ReactiveStore second = harness.open();
        TestEvents ev = TestEvents.of(w);
        Event start = ev.started("checkout");
        append(store, w, List.of(start), 0);
        // when: the second instance appends under a stale guard, then under the right one
        Event signal = ev.signalReceived("go");
        assertThat(failure(second.append(w, List.of(signal), 0), SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(0, 1));
        append(second, w, List.of(signal), 1);
        // then: the first instance sees the head the second wrote
        assertThat(failure(
                        store.append(w, List.of(TestEvents.of(w, 1).completed()), 1), SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(1, 2));
        assertThat(history(store, w)).containsExactly(start, signal);
    }

    @Test
    public void S22_C173_two_instances_writing_concurrently_both_succeed() {
        // given
        ReactiveStore second = harness.open();
        Map<WorkflowId, List<Event>> written = new LinkedHashMap<>();
        List<Mono<Void>> firstWrites = new ArrayList<>();
        List<Mono<Void>> secondWrites = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            WorkflowId id = WorkflowId.random();
            TestEvents ev = TestEvents.of(id);
            List<Event> batch = List.of(ev.started("w" + i), ev.signalReceived("x"));
            written.put(id, batch);
            ReactiveStore target = i % 2 == 0 ? store : second;
            Mono<Void> write = Mono.defer(() -> target.append(id, batch, 0))
                    .then(Mono.defer(() -> target.scheduleTimer(id, TimerId.anonymous(2), t(60))));
            (i % 2 == 0 ? firstWrites : secondWrites).add(write);
        }
        // when: each instance commits its 40 workflows one after another, both at the same time
        List<Throwable> outcomes =
                concurrently(List.of(() -> Flux.concat(firstWrites), () -> Flux.concat(secondWrites)));
        // then: no lock error surfaced and every write is there
        assertThat(outcomes).containsOnlyNulls();
        for (Map.Entry<WorkflowId, List<Event>> e : written.entrySet()) {
            assertThat(history(store, e.getKey())).isEqualTo(e.getValue());
        }
        assertThat(workflowIds(second)).containsExactlyInAnyOrderElementsOf(written.keySet());
        assertThat(expired(store, t(60))).hasSize(80);
    }

    // ------------------------------------------------------------------ E24 / E25 / S24 reopen

    @Test
    public void E24_C81_guard_uses_the_persisted_head_after_reopen() {
        // given
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("checkout"), ev.signalReceived("a")));
        // when
        reopen();
        // then
        Event third = ev.signalReceived("b");
        append(store, w, List.of(third), 2);
        assertThat(failure(
                        store.append(w, List.of(TestEvents.of(w, 3).completed()), 0), SequenceConflictException.class))
                .isEqualTo(new SequenceConflictException(0, 3));
        assertThat(history(store, w)).extracting(Event::seq).containsExactly(1L, 2L, 3L);
    }

    @Test
    public void E25_acknowledged_append_is_visible_through_another_instance_at_once() {
        // given
        ReactiveStore reader = harness.open();
        TestEvents ev = TestEvents.of(w);
        for (int i = 0; i < 10; i++) {
            // when
            List<Event> batch = i == 0 ? List.of(ev.started("checkout")) : List.of(ev.signalReceived("s" + i));
            append(store, w, batch, i);
            // then: the moment success is signalled, the other instance reads it
            assertThat(historyFrom(reader, w, i + 1)).isEqualTo(batch);
            assertThat(head(reader, w)).isEqualTo(i + 1);
        }
    }

    @Test
    public void E25_S24_writes_acknowledged_before_close_survive_it() {
        // given: 16 appends subscribed, then the store is closed while they may still be queued
        Map<WorkflowId, List<Event>> batches = new LinkedHashMap<>();
        List<CompletableFuture<Throwable>> outcomes = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            WorkflowId id = WorkflowId.random();
            TestEvents ev = TestEvents.of(id);
            List<Event> batch = List.of(ev.started("w" + i), ev.signalReceived("x"));
            batches.put(id, batch);
            outcomes.add(store.append(id, batch, 0)
                    .then(Mono.<Throwable>empty())
                    .onErrorResume(Mono::just)
                    .toFuture());
        }
        // when
        store.close();
        store = harness.open();
        // then: each append either succeeded and is stored, or failed as closed and left nothing
        int i = 0;
        for (Map.Entry<WorkflowId, List<Event>> e : batches.entrySet()) {
            Throwable outcome = outcomeOf(outcomes.get(i++));
            if (outcome == null) {
                assertThat(history(store, e.getKey())).as("acknowledged write").isEqualTo(e.getValue());
            } else {
                assertThat(outcome).isInstanceOf(StoreClosedException.class);
                assertThat(history(store, e.getKey())).as("refused write").isEmpty();
            }
        }
    }

    private static Throwable outcomeOf(CompletableFuture<Throwable> future) {
        try {
            return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("the append never terminated after close()", e);
        }
    }

    @Test
    public void S24_C80_histories_heads_active_list_and_timers_survive_reopen() {
        // given: a running workflow with two timers, a completed one, and every event kind
        WorkflowId running = wid("00000000-0000-0000-0000-000000000001");
        WorkflowId completed = wid("00000000-0000-0000-0000-000000000002");
        WorkflowId rich = wid("00000000-0000-0000-0000-000000000003");
        TestEvents r = TestEvents.of(running);
        given(store, List.of(r.started("a", t(1)), r.signalReceived("x")));
        TestEvents c = TestEvents.of(completed);
        given(store, List.of(c.started("b", t(2)), c.completed(t(3))));
        given(store, TestEvents.of(rich).everyKind());
        StepVerifier.create(store.scheduleTimer(running, TimerId.anonymous(10), t(50)))
                .verifyComplete();
        StepVerifier.create(store.scheduleTimer(running, TimerId.anonymous(11), t(500)))
                .verifyComplete();
        Map<WorkflowId, List<Event>> histories = new LinkedHashMap<>();
        for (WorkflowId id : List.of(running, completed, rich)) {
            histories.put(id, history(store, id));
        }
        List<WorkflowId> activeBefore = active(store);
        var summariesBefore = KitSupport.query(store, WorkflowFilter.all());
        // when
        reopen();
        // then
        for (Map.Entry<WorkflowId, List<Event>> e : histories.entrySet()) {
            assertThat(history(store, e.getKey())).isEqualTo(e.getValue());
            assertThat(head(store, e.getKey())).isEqualTo(e.getValue().size());
        }
        assertThat(active(store)).isEqualTo(activeBefore).contains(running).doesNotContain(completed);
        assertThat(KitSupport.query(store, WorkflowFilter.all())).isEqualTo(summariesBefore);
        assertThat(expired(store, t(100))).containsExactly(new TimerEntry(running, TimerId.anonymous(10), t(50)));
        assertThat(workflowIds(store)).containsExactly(running, completed, rich);
    }

    @Test
    public void S6_C166_reopening_an_existing_database_succeeds_and_changes_nothing() {
        // given
        TestEvents ev = TestEvents.of(w);
        List<Event> events = List.of(ev.started("checkout"), ev.signalReceived("a"));
        given(store, events);
        // when: reopened three times, and a second instance opened while one is open
        for (int i = 0; i < 3; i++) {
            reopen();
        }
        ReactiveStore second = harness.open();
        // then
        assertThat(history(store, w)).isEqualTo(events);
        assertThat(history(second, w)).isEqualTo(events);
        assertThat(workflowIds(store)).containsExactly(w);
        append(second, w, List.of(ev.completed()), 2);
        assertThat(head(store, w)).isEqualTo(3);
    }

    // ------------------------------------------------------------------ S25 / S26 corrupt events

    @Test
    public void S25_validate_completes_when_every_stored_event_decodes() {
        // given: an empty store, then every kind with and without optionals
        StepVerifier.create(store.validateStoredEvents()).expectComplete().verify(TIMEOUT);
        given(store, TestEvents.of(w).everyKind());
        given(store, TestEvents.of(WorkflowId.random()).everyKindWithoutOptionals());
        // when / then
        StepVerifier.create(store.validateStoredEvents()).expectComplete().verify(TIMEOUT);
    }

    @Test
    public void S25_C65_validate_fails_at_the_first_undecodable_event_in_id_then_seq_order() {
        // given: corrupt events in two workflows; "0…1" precedes "8…0" by text (not by UUID#compareTo)
        WorkflowId first = wid("00000000-0000-0000-0000-000000000001");
        WorkflowId second = wid("80000000-0000-0000-0000-000000000000");
        for (WorkflowId id : List.of(first, second)) {
            TestEvents ev = TestEvents.of(id);
            List<Event> events = new ArrayList<>();
            events.add(ev.started("x"));
            for (int i = 0; i < 8; i++) {
                events.add(ev.signalReceived("s" + i));
            }
            given(store, events);
        }
        harness.corruptEvent(second, 2);
        harness.corruptEvent(first, 7);
        // when
        SerializationException e = failure(store.validateStoredEvents(), SerializationException.class);
        // then
        assertThat(e.getMessage()).contains(first.toString()).doesNotContain(second.toString());
        assertThat(e.getMessage()).matches(namesSeq(7));
    }

    @Test
    public void S25_find_undecodable_events_reports_every_bad_row_in_id_then_seq_order() {
        // given: three corrupt events in two workflows, and a healthy workflow
        WorkflowId first = wid("00000000-0000-0000-0000-000000000001");
        WorkflowId second = wid("80000000-0000-0000-0000-000000000000");
        for (WorkflowId id : List.of(first, second, WorkflowId.random())) {
            TestEvents ev = TestEvents.of(id);
            given(store, List.of(ev.started("x"), ev.signalReceived("a"), ev.signalReceived("b"), ev.completed()));
        }
        harness.corruptEvent(second, 2);
        harness.corruptEvent(first, 4);
        harness.corruptEvent(first, 1);
        // when
        List<UndecodableEvent> found =
                store.findUndecodableEvents().collectList().block(TIMEOUT);
        // then: exactly those three, in (workflow id text, seq) order, and nothing was changed
        assertThat(found)
                .extracting(UndecodableEvent::workflowId, UndecodableEvent::seq)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(first.toString(), 1L),
                        org.assertj.core.groups.Tuple.tuple(first.toString(), 4L),
                        org.assertj.core.groups.Tuple.tuple(second.toString(), 2L));
        assertThat(found).allSatisfy(p -> assertThat(p.message()).isNotBlank());
        assertThat(store.findUndecodableEvents().collectList().block(TIMEOUT)).isEqualTo(found);
    }

    @Test
    public void S26_C64_read_meeting_a_corrupt_event_fails_naming_workflow_and_seq() {
        // given
        TestEvents ev = TestEvents.of(w);
        List<Event> events =
                List.of(ev.started("checkout"), ev.signalReceived("a"), ev.signalReceived("b"), ev.completed());
        given(store, events);
        harness.corruptEvent(w, 2);
        // when / then: every read that reaches seq 2 fails with Serialization, without skipping it
        for (Flux<Event> read : List.of(
                store.readHistory(w),
                store.readHistoryFrom(w, 0),
                store.readHistoryFrom(w, 1),
                store.readHistoryFrom(w, 2))) {
            SerializationException e = failure(read, SerializationException.class);
            assertThat(e.getMessage()).contains(w.toString()).matches(namesSeq(2));
        }
        // and reads past it still work
        assertThat(historyFrom(store, w, 3)).isEqualTo(events.subList(2, 4));
    }

    @Test
    public void S26_other_workflows_still_read_fine_next_to_a_corrupt_event() {
        // given
        WorkflowId healthy = WorkflowId.random();
        TestEvents he = TestEvents.of(healthy);
        List<Event> healthyEvents = List.of(he.started("fine"), he.signalReceived("a"));
        given(store, healthyEvents);
        TestEvents ev = TestEvents.of(w);
        given(store, List.of(ev.started("broken"), ev.signalReceived("a")));
        harness.corruptEvent(w, 1);
        // when
        failure(store.readHistory(w), SerializationException.class);
        // then
        assertThat(history(store, healthy)).isEqualTo(healthyEvents);
        assertThat(historyFrom(store, healthy, 2)).containsExactly(healthyEvents.get(1));
        append(store, healthy, List.of(he.completed()), 2);
        assertThat(head(store, healthy)).isEqualTo(3);
        // and the corrupt row still fails on the next read: nothing was skipped or repaired
        failure(store.readHistory(w), SerializationException.class);
    }

    private static Pattern namesSeq(long seq) {
        return Pattern.compile(".*\\b" + seq + "\\b.*", Pattern.DOTALL);
    }

    // ------------------------------------------------------------------ X9 closed store

    @Test
    public void X9_operations_on_a_closed_store_signal_store_closed_and_close_is_idempotent() {
        // given
        given(store, List.of(TestEvents.of(w).started("checkout")));
        store.close();
        assertThatCode(store::close).as("close() is idempotent").doesNotThrowAnyException();
        // when / then
        Event next = TestEvents.of(w, 1).completed();
        Map<String, Supplier<Publisher<?>>> operations = new LinkedHashMap<>();
        operations.put("append", () -> store.append(w, List.of(next), 1));
        operations.put("appendWithOutbox", () -> store.appendWithOutbox(w, List.of(next), 1, List.of()));
        operations.put("readHistory", () -> store.readHistory(w));
        operations.put("readHistoryFrom", () -> store.readHistoryFrom(w, 1));
        operations.put("readHead", () -> store.readHead(w));
        operations.put("listWorkflowIds", () -> store.listWorkflowIds());
        operations.put("listActive", () -> store.listActive());
        operations.put("listPaused", () -> store.listPaused());
        operations.put("query", () -> store.query(WorkflowFilter.all()));
        operations.put("readRunChain", () -> store.readRunChain(w));
        operations.put("validateStoredEvents", () -> store.validateStoredEvents());
        operations.put("scheduleTimer", () -> store.scheduleTimer(w, TimerId.named("t"), t(1)));
        operations.put("expiredTimers", () -> store.expiredTimers(t(1)));
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Supplier<Publisher<?>>> operation : operations.entrySet()) {
            Publisher<?>[] publisher = new Publisher<?>[1];
            assertThatCode(() -> publisher[0] = operation.getValue().get())
                    .as(operation.getKey())
                    .doesNotThrowAnyException();
            Throwable error = Flux.from(publisher[0])
                    .then(Mono.<Throwable>empty())
                    .onErrorResume(Mono::just)
                    .block(TIMEOUT);
            if (!(error instanceof StoreClosedException)) {
                wrong.add(operation.getKey() + " -> " + (error == null ? "completed" : error));
            }
        }
        assertThat(wrong)
                .as("operations that did not signal StoreClosedException")
                .isEmpty();
        // and the append after close wrote nothing
        assertThat(history(reopenedStore(), w)).hasSize(1);
    }

    private ReactiveStore reopenedStore() {
        store = harness.open();
        return store;
    }
}
