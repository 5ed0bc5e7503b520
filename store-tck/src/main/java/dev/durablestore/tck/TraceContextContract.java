package dev.durablestore.tck;

import static dev.durablestore.tck.OutboxFixtures.row;
import static dev.durablestore.tck.OutboxFixtures.started;
import static dev.durablestore.tck.OutboxFixtures.workflow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/** Contract of the trace context a row carries from staging to every read of it (O59). */
public abstract class TraceContextContract extends OutboxContractSupport {

    private static final String TRACE_A = "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    private static final String TRACE_B =
            "traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n" + "tracestate=vendor=opaque";

    private static Map<String, String> traceByKey(List<OutboxRow> rows) {
        return rows.stream()
                .collect(Collectors.toMap(
                        OutboxRow::dispatchKey, r -> r.traceContext() == null ? "<none>" : r.traceContext()));
    }

    @Test
    void O59_appendOutboxBatch_stores_each_rows_trace_context_and_a_claim_returns_it() {
        // given rows staged with two trace contexts and one without
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now()).withTraceContext(TRACE_A);
        OutboxRow b = row(w, 1, now()).withTraceContext(TRACE_B);
        OutboxRow none = row(w, 2, now());
        stage(a, b, none);

        // when they are claimed
        List<OutboxRow> claimed = claim(10);

        // then each comes back with its own context, byte for byte
        assertThat(traceByKey(claimed))
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(a.dispatchKey(), TRACE_A, b.dispatchKey(), TRACE_B, none.dispatchKey(), "<none>"));
    }

    @Test
    void O59_appendWithOutbox_and_commitStep_store_the_trace_context_even_when_grouped() {
        // given eight workflows staging at once (grouped into one statement where the backend groups)
        List<WorkflowId> workflows = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            workflows.add(workflow(10 + i));
        }
        StepVerifier.create(Flux.fromIterable(workflows)
                        .flatMap(
                                w -> store.appendWithOutbox(
                                        w,
                                        List.of(started(w, 1, now())),
                                        0,
                                        List.of(row(w, 0, now()).withTraceContext(TRACE_A + w), row(w, 1, now()))),
                                8))
                .expectComplete()
                .verify(TIMEOUT);
        // and a step that stages the next row of the first workflow
        WorkflowId first = workflows.get(0);
        StepVerifier.create(store.commitStep(WorkflowStep.builder(first, 1)
                        .append(OutboxFixtures.signal(first, 2, now()))
                        .stage(row(first, 2, now()).withTraceContext(TRACE_B))
                        .build()))
                .expectComplete()
                .verify(TIMEOUT);

        // when every row is claimed
        Map<String, String> traces = traceByKey(claim(100));

        // then each staged row carries its own context
        for (WorkflowId w : workflows) {
            assertThat(traces)
                    .containsEntry(OutboxRow.dispatchKey(w, 0), TRACE_A + w)
                    .containsEntry(OutboxRow.dispatchKey(w, 1), "<none>");
        }
        assertThat(traces)
                .containsEntry(OutboxRow.dispatchKey(first, 2), TRACE_B)
                .hasSize(17);
    }

    @Test
    void O59_the_context_survives_retry_rearm_heartbeat_and_a_claim_stream() {
        // given a row staged with a context, claimed and retried
        WorkflowId w = workflow(1);
        OutboxRow a = row(w, 0, now()).withTraceContext(TRACE_A);
        stage(a);
        OutboxRow claimed = claim(1).get(0);
        store.settle(claimed, Settlement.retryAt(1, now())).block(TIMEOUT);

        // when it is claimed again, heartbeated, found stale, re-armed and claimed by a stream
        OutboxRow again = claim(1).get(0);
        store.heartbeat(List.of(again)).block(TIMEOUT);
        clock.advance(Duration.ofMinutes(10));
        List<OutboxRow> stale = store.listStaleClaimed(now(), 10).collectList().block(TIMEOUT);
        List<OutboxRow> rearmed = store.rearmStaleClaimed(now(), now(), 10).block(TIMEOUT);

        // then every read carries the context
        assertThat(again.traceContext()).isEqualTo(TRACE_A);
        assertThat(stale).extracting(OutboxRow::traceContext).containsExactly(TRACE_A);
        assertThat(rearmed).extracting(OutboxRow::traceContext).containsExactly(TRACE_A);
        StepVerifier.create(store.claimStream(ClaimStreamOptions.defaults()).take(1))
                .assertNext(r -> assertThat(r.traceContext()).isEqualTo(TRACE_A))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void O59_rearmPending_inserts_an_unknown_rows_context_and_keeps_a_stored_rows() {
        // given a stored row with context A and an unknown row with context B
        WorkflowId w = workflow(1);
        OutboxRow stored = row(w, 0, now()).withTraceContext(TRACE_A);
        stage(stored);
        OutboxRow unknown = row(w, 1, now()).withTraceContext(TRACE_B);

        // when both are re-armed, the stored one supplied with another context
        StepVerifier.create(store.rearmPending(List.of(stored.withTraceContext(TRACE_B), unknown)))
                .expectComplete()
                .verify(TIMEOUT);

        // then the stored row keeps its own, the unknown one is inserted with its own
        assertThat(traceByKey(claim(10)))
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(stored.dispatchKey(), TRACE_A, unknown.dispatchKey(), TRACE_B));
    }

    @Test
    void O59_an_empty_or_over_long_context_is_refused_naming_row_traceContext() {
        WorkflowId w = workflow(1);
        Function<String, OutboxRow> withTrace = t -> row(w, 0, now()).withTraceContext(t);

        assertThatThrownBy(() -> withTrace.apply(""))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("row.traceContext");
        assertThatThrownBy(() -> withTrace.apply("x".repeat(OutboxRow.MAX_TRACE_CONTEXT + 1)))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("row.traceContext");
        assertThat(withTrace.apply("x".repeat(OutboxRow.MAX_TRACE_CONTEXT)).traceContext())
                .hasSize(OutboxRow.MAX_TRACE_CONTEXT);
    }
}
