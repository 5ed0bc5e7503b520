package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.input;
import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.started;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.ChildWorkflowStarted;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.api.internal.Rows;
import dev.durablestore.api.internal.StoredText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * Text the store keeps in a column (X10, {@link StoredText}): dispatch keys, namespaces, task queues,
 * nodes, activity types, workflow types and timer names are kept exactly or refused, on every
 * backend alike. A lone UTF-16 surrogate, a NUL or a text over {@value StoredText#MAX_UTF8_BYTES}
 * UTF-8 bytes is refused with an {@code InvalidArgumentException} naming the argument and nothing is
 * written; a surrogate pair is kept exactly, so keys and routes never collide. Reads, settles and
 * counts given such a text answer as for a text that is not stored.
 */
public abstract class StoredTextContract extends OutboxContractSupport {

    /** Texts no backend can keep: lone high and low surrogates (alone and inside text), NUL, one byte too long. */
    private static final List<String> UNSTORABLE = List.of(
            "\uD800",
            "\uDC00",
            "k\uD800",
            "k\uDC00x",
            "k\u0000",
            "\u0000",
            "a".repeat(StoredText.MAX_UTF8_BYTES + 1),
            "\u20AC".repeat(342)); // 342 characters, but 1,026 bytes in UTF-8

    /** The fields of a row the store writes as text, each with how to give a row that value. */
    private static final Map<String, BiFunction<OutboxRow, String, OutboxRow>> ROW_TEXTS = Map.of(
            "dispatchKey",
                    (r, v) -> Rows.stored(
                            v,
                            r.workflowId(),
                            r.ordinal(),
                            r.runId(),
                            r.namespace(),
                            r.taskQueue(),
                            r.node(),
                            r.activityType(),
                            r.input(),
                            r.status(),
                            r.attempt(),
                            r.visibleAfter(),
                            r.claimedAt(),
                            0L,
                            null,
                            OutboxRow.MIN_PRIORITY,
                            List.of()),
            "namespace", (r, v) -> r.withRoute(v, r.taskQueue(), r.node()),
            "taskQueue", (r, v) -> r.withRoute(r.namespace(), v, r.node()),
            "node", (r, v) -> r.withRoute(r.namespace(), r.taskQueue(), v),
            "activityType",
                    (r, v) -> Rows.stored(
                            r.dispatchKey(),
                            r.workflowId(),
                            r.ordinal(),
                            r.runId(),
                            r.namespace(),
                            r.taskQueue(),
                            r.node(),
                            v,
                            r.input(),
                            r.status(),
                            r.attempt(),
                            r.visibleAfter(),
                            r.claimedAt(),
                            0L,
                            null,
                            OutboxRow.MIN_PRIORITY,
                            List.of()));

    @Test
    void X10_staging_refuses_each_unstorable_row_text_naming_it_and_writes_nothing() {
        // given an empty store and, for each text column of a row, a row carrying an unstorable value there
        WorkflowId w = workflow(1);
        for (Map.Entry<String, BiFunction<OutboxRow, String, OutboxRow>> field : ROW_TEXTS.entrySet()) {
            for (String bad : UNSTORABLE) {
                OutboxRow row = field.getValue().apply(row(w, 0, now()), bad);
                String argument = "rows[1]." + field.getKey();
                List<OutboxRow> batch = List.of(row(w, 1, now()), row);

                // when it is staged, staged with events, or re-armed (behind a valid row)
                // then each call fails naming the row's field
                assertRejected(() -> store.appendOutboxBatch(batch), argument);
                assertRejected(() -> store.appendWithOutbox(w, List.of(started(w, 1, now())), 0, batch), argument);
                assertRejected(() -> store.rearmPending(batch), argument);
            }
        }

        // and nothing was written: no row, no event
        StepVerifier.create(store.listUnsettledWorkflowIds()).expectComplete().verify(TIMEOUT);
        StepVerifier.create(store.readHead(w)).expectNext(0L).expectComplete().verify(TIMEOUT);
        StepVerifier.create(store.claim(ClaimRequest.of(100)))
                .expectNext(List.of())
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void X10_append_refuses_an_unstorable_workflow_type_of_a_start_or_child_start() {
        // given a workflow with a start, and a second one without history
        WorkflowId w = workflow(1);
        WorkflowId fresh = workflow(2);
        append(w, List.of(started(w, 1, now())), 0);
        for (String bad : UNSTORABLE) {
            Event start = startedAs(fresh, bad);
            Event child = new ChildWorkflowStarted(
                    new EventEnvelope(2, now(), w), workflow(3), bad, Payload.json("{}"), new PackageVersion("v1"));

            // when a start or a child start carries an unstorable workflow type
            // then the append fails naming the event's type, with or without rows
            assertRejected(() -> store.append(fresh, List.of(start), 0), "events[0].workflowType");
            assertRejected(
                    () -> store.appendWithOutbox(fresh, List.of(start), 0, List.of(row(fresh, 0, now()))),
                    "events[0].workflowType");
            assertRejected(() -> store.append(w, List.of(child), 1), "events[0].workflowType");
        }

        // and nothing was written
        StepVerifier.create(store.readHead(fresh))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.readHead(w)).expectNext(1L).expectComplete().verify(TIMEOUT);
        StepVerifier.create(store.listUnsettledWorkflowIds()).expectComplete().verify(TIMEOUT);
    }

    @Test
    void X10_scheduleTimer_refuses_an_unstorable_timer_name() {
        // when a named timer's name is unstorable
        WorkflowId w = workflow(1);
        for (String bad : UNSTORABLE) {
            assertRejected(() -> store.scheduleTimer(w, TimerId.named(bad), now()), "timerId.name");
        }

        // then no timer was written
        StepVerifier.create(store.expiredTimers(now().plusSeconds(3600)))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void X10_texts_at_the_limit_are_kept_exactly_in_every_column() {
        // given texts of exactly the limit, in one-, two-, three- and four-byte characters
        WorkflowId w = workflow(1);
        String key = limitText('k');
        String namespace = "\u00E9".repeat(StoredText.MAX_UTF8_BYTES / 2);
        String taskQueue = "\u20AC".repeat(StoredText.MAX_UTF8_BYTES / 3) + "q";
        String node = "\uD83D\uDE00".repeat(StoredText.MAX_UTF8_BYTES / 4);
        String activity = limitText('a');
        String type = limitText('t');
        String timer = limitText('n');
        assertThat(List.of(key, namespace, taskQueue, node, activity, type, timer))
                .allSatisfy(t -> assertThat(t.getBytes(StandardCharsets.UTF_8)).hasSize(StoredText.MAX_UTF8_BYTES));
        OutboxRow row = Rows.stored(
                key,
                w,
                0,
                null,
                namespace,
                taskQueue,
                node,
                activity,
                input(w, 0),
                OutboxStatus.PENDING,
                0,
                now(),
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());

        // when they are stored
        append(w, List.of(startedAs(w, type)), 0, List.of(row));
        store.scheduleTimer(w, TimerId.named(timer), now()).block(TIMEOUT);

        // then each reads back exactly
        StepVerifier.create(store.pendingRoutes())
                .expectNext(new ClaimScope(namespace, taskQueue, node))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.claim(ClaimRequest.of(10).withScope(new ClaimScope(namespace, taskQueue, node))))
                .assertNext(claimed -> assertThat(OutboxFixtures.withoutTokens(claimed))
                        .containsExactly(row.withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(
                        store.query(WorkflowFilter.all().withWorkflowType(type)).map(WorkflowSummary::workflowId))
                .expectNext(w)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.expiredTimers(now()))
                .expectNext(new TimerEntry(w, TimerId.named(timer), now()))
                .expectComplete()
                .verify(TIMEOUT);
        store.settleKeys(List.of(key), Settlement.complete()).block(TIMEOUT);
        assertStatus(key, OutboxStatus.DONE);
    }

    @Test
    void X10_texts_differing_only_in_a_character_outside_the_BMP_never_collide() {
        // given two rows whose keys, routes and activity types differ only in an emoji (a surrogate pair),
        // two workflows whose types do, and two timers whose names do
        WorkflowId w = workflow(1);
        WorkflowId v = workflow(2);
        String grin = "\uD83D\uDE00";
        String beam = "\uD83D\uDE01";
        OutboxRow first = Rows.stored(
                "k-" + grin,
                w,
                0,
                null,
                "ns-" + grin,
                "q-" + grin,
                "n-" + grin,
                "act-" + grin,
                input(w, 0),
                OutboxStatus.PENDING,
                0,
                now(),
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());
        OutboxRow second = Rows.stored(
                "k-" + beam,
                v,
                0,
                null,
                "ns-" + beam,
                "q-" + beam,
                "n-" + beam,
                "act-" + beam,
                input(v, 0),
                OutboxStatus.PENDING,
                0,
                now(),
                null,
                0L,
                null,
                OutboxRow.MIN_PRIORITY,
                List.of());
        append(w, List.of(startedAs(w, "type-" + grin)), 0, List.of(first));
        append(v, List.of(startedAs(v, "type-" + beam)), 0, List.of(second));
        store.scheduleTimer(w, TimerId.named("t-" + grin), now()).block(TIMEOUT);
        store.scheduleTimer(w, TimerId.named("t-" + beam), now()).block(TIMEOUT);

        // when each is read, counted, claimed and settled by its own text
        // then each finds only its own: both rows are stored, staging skipped neither
        assertState(first.dispatchKey(), OutboxStatus.PENDING, 0, now());
        assertState(second.dispatchKey(), OutboxStatus.PENDING, 0, now());
        assertThat(store.countInflight("ns-" + grin).block(TIMEOUT)).isEqualTo(1L);
        StepVerifier.create(store.claim(ClaimRequest.of(10).withScope(second.route())))
                .assertNext(claimed -> assertThat(OutboxFixtures.withoutTokens(claimed))
                        .containsExactly(second.withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(store.countClaimedByNamespace(List.of("ns-" + grin, "ns-" + beam))
                        .block(TIMEOUT))
                .isEqualTo(Map.of("ns-" + grin, 0L, "ns-" + beam, 1L));
        store.settleKeys(List.of(second.dispatchKey()), Settlement.complete()).block(TIMEOUT);
        assertStatus(first.dispatchKey(), OutboxStatus.PENDING);
        assertStatus(second.dispatchKey(), OutboxStatus.DONE);
        StepVerifier.create(store.query(WorkflowFilter.all().withWorkflowType("type-" + beam))
                        .map(WorkflowSummary::workflowId))
                .expectNext(v)
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(store.expiredTimers(now()).map(TimerEntry::timerId))
                .expectNext(TimerId.named("t-" + grin), TimerId.named("t-" + beam))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O33_O46_O50_reads_settles_and_counts_of_unstorable_texts_answer_as_for_unstored_ones() {
        // given a pending and a claimed row whose key and namespace are what a driver makes of a lone
        // surrogate ('?'), and a pending row pinned to node "n?" on the same route
        WorkflowId w = workflow(1);
        OutboxRow claimed = keyed(w, 0, "k?").withRoute("ns?", "q", null);
        OutboxRow pending = keyed(w, 1, "p?").withRoute("ns?", "q", null);
        OutboxRow pinned = keyed(w, 2, "n?").withRoute("ns?", "q", "n?");
        stage(claimed);
        List<OutboxRow> claimedRows = claim(1);
        stage(pending, pinned);
        for (String bad : UNSTORABLE) {
            // when every operation that looks a key or a namespace up is given an unstorable one
            // then each answers as for a key or namespace that is not stored, without an error
            StepVerifier.create(store.settleKeys(List.of(bad), Settlement.complete()))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.settleKeys(List.of(bad), Settlement.fail()))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.settleKeys(List.of(bad), Settlement.cancel()))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.settleKeys(List.of(bad), Settlement.retryAt(3, now())))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.redrive(bad, true))
                    .expectNext(false)
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.rowState(bad)).expectComplete().verify(TIMEOUT);
            OutboxRow claimedUnder = claimedRows.get(0);
            OutboxRow badClaim = Rows.withClaimToken(claimedUnder.withDispatchKey(bad), claimedUnder.claimToken());
            StepVerifier.create(store.heartbeat(List.of(badClaim, claimedUnder)))
                    .expectNext(List.of(claimed.dispatchKey()))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.countInflight(bad))
                    .expectNext(0L)
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.countClaimed(bad))
                    .expectNext(0L)
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.countClaimedByNamespace(List.of(bad, "ns?")))
                    .expectNext(Map.of(bad, 0L, "ns?", 1L))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.countClaimedByNamespace(Set.of(bad)))
                    .expectNext(Map.of(bad, 0L))
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.claim(ClaimRequest.of(10).withScope(ClaimScope.of(bad, "q"))))
                    .expectNext(List.of())
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.claim(ClaimRequest.of(10)
                            .withScope(ClaimScope.of("ns?", bad))
                            .withHeldWorkflows(Set.of())))
                    .expectNext(List.of())
                    .expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(store.query(WorkflowFilter.all().withWorkflowType(bad)))
                    .expectComplete()
                    .verify(TIMEOUT);
        }

        // and the stored rows were left alone
        assertState(claimed.dispatchKey(), OutboxStatus.CLAIMED, 0, claimed.visibleAfter());
        assertState(pending.dispatchKey(), OutboxStatus.PENDING, 0, pending.visibleAfter());
        assertState(pinned.dispatchKey(), OutboxStatus.PENDING, 0, pinned.visibleAfter());
        assertThat(store.countInflight("ns?").block(TIMEOUT)).isEqualTo(3L);
    }

    @Test
    void O7_a_scope_whose_node_cannot_be_stored_admits_the_unpinned_rows_only() {
        // given an unpinned row and a row pinned to "n?" on one route
        WorkflowId w = workflow(1);
        OutboxRow unpinned = keyed(w, 0, "u").withRoute("ns", "q", null);
        OutboxRow pinned = keyed(w, 1, "p").withRoute("ns", "q", "n?");
        stage(unpinned, pinned);

        // when a scope pinned to a node with a lone surrogate claims
        StepVerifier.create(store.claim(ClaimRequest.of(10).withScope(new ClaimScope("ns", "q", "n\uDC00")))
                        .map(OutboxFixtures::withoutTokens))
                // then it takes the unpinned row only, as a scope without a node would
                .expectNext(List.of(unpinned.withStatus(OutboxStatus.CLAIMED, now())))
                .expectComplete()
                .verify(TIMEOUT);
        assertStatus(pinned.dispatchKey(), OutboxStatus.PENDING);
    }

    @Test
    void O52_a_claim_stream_on_an_unstorable_namespace_claims_nothing() {
        // given a due row in namespace "ns?"
        OutboxRow row = keyed(workflow(1), 0, "k").withRoute("ns?", "q", null);
        stage(row);

        // when a claim stream for namespace "ns" + a lone surrogate is asked for rows
        StepVerifier.create(
                        store.claimStream(ClaimStreamOptions.defaults()
                                .withScope(ClaimScope.of("ns\uDC00", "q"))
                                .withPollInterval(Duration.ofMillis(20))),
                        0)
                .expectSubscription()
                .thenRequest(1)
                // then it delivers nothing through several polls
                .expectNoEvent(Duration.ofMillis(200))
                .thenCancel()
                .verify(TIMEOUT);

        // and the row of the other namespace is still pending
        assertStatus(row.dispatchKey(), OutboxStatus.PENDING);
    }

    private void append(WorkflowId w, List<Event> events, long expectedSeq) {
        store.append(w, events, expectedSeq).block(TIMEOUT);
    }

    private void append(WorkflowId w, List<Event> events, long expectedSeq, List<OutboxRow> rows) {
        store.appendWithOutbox(w, events, expectedSeq, rows).block(TIMEOUT);
    }

    private Event startedAs(WorkflowId w, String workflowType) {
        return new WorkflowStarted(
                new EventEnvelope(1, now(), w),
                workflowType,
                Payload.json("{}"),
                RunId.parse("00000000-0000-4000-8000-0000000000aa"),
                null,
                new PackageVersion("v1"));
    }

    private OutboxRow keyed(WorkflowId w, long ordinal, String key) {
        return ROW_TEXTS.get("dispatchKey").apply(row(w, ordinal, now()), key);
    }

    /**
     * @param first the first character
     * @return {@link StoredText#MAX_UTF8_BYTES} ASCII letters that do not compress well (PostgreSQL
     *     compresses index entries, so a repeated letter would not reach the index's size limit)
     */
    private static String limitText(char first) {
        StringBuilder sb = new StringBuilder(StoredText.MAX_UTF8_BYTES);
        sb.append(first);
        long x = first;
        while (sb.length() < StoredText.MAX_UTF8_BYTES) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            sb.append((char) ('a' + (int) ((x >>> 33) % 26)));
        }
        return sb.toString();
    }
}
