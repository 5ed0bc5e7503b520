package dev.durablestore.core.storage;

import dev.durablestore.api.RunSummary;
import dev.durablestore.api.UndecodableEvent;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.Event;
import dev.durablestore.core.internal.EventEncoder;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.StepEncoder;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The event history of a backend: guarded appends, steps, reads and projections. Arguments arrive
 * checked (non-null, in range): the store checks them before it calls here.
 */
public interface HistoryStorage {

    /**
     * E1–E22, O8–O11: appends {@code events} under the expected head and stages {@code rows} in the
     * same transaction ({@code append} passes no rows). The arguments are checked and encoded.
     *
     * @param workflowId the workflow
     * @param expectedSeq the expected head
     * @param events the encoded events, {@code seq} from {@code expectedSeq + 1} on
     * @param rows the encoded rows to stage with them, possibly empty
     * @return completes once committed
     */
    Mono<Void> append(
            WorkflowId workflowId,
            long expectedSeq,
            List<EventEncoder.Encoded> events,
            List<OutboxRowEncoder.Encoded> rows);

    /**
     * W1–W12: one workflow step, all of it or none of it.
     *
     * @param step the checked and encoded step
     * @return completes once committed
     */
    Mono<Void> commitStep(StepEncoder.Encoded step);

    /**
     * @param workflowId the workflow
     * @return its events in {@code seq} order (R1)
     */
    Flux<Event> readHistory(WorkflowId workflowId);

    /**
     * @param workflowId the workflow
     * @param fromSeq the first {@code seq} to read
     * @return its events from {@code fromSeq} on (R3)
     */
    Flux<Event> readHistoryFrom(WorkflowId workflowId, long fromSeq);

    /**
     * @param workflowId the workflow
     * @return its head, 0 when it has no event (E2)
     */
    Mono<Long> readHead(WorkflowId workflowId);

    /** @return every workflow with an event, in id order (R9) */
    Flux<WorkflowId> listWorkflowIds();

    /**
     * R19–R23: the workflows whose projected status is {@code status}.
     *
     * @param operation the operation's name, for errors
     * @param status {@code RUNNING} or {@code PAUSED}
     * @return their ids, in id order
     */
    Flux<WorkflowId> listWithStatus(String operation, WorkflowStatus status);

    /**
     * @param filter the filter
     * @return the matching summaries (R24–R39)
     */
    Flux<WorkflowSummary> query(WorkflowFilter filter);

    /**
     * @param workflowId the workflow
     * @return its summary (R46), or empty
     */
    Mono<WorkflowSummary> readSummary(WorkflowId workflowId);

    /**
     * @param workflowId the workflow
     * @return its runs, root first (R40–R45)
     */
    Mono<List<RunSummary>> readRunChain(WorkflowId workflowId);

    /** @return every stored event that does not decode, in workflow id and {@code seq} order */
    Flux<UndecodableEvent> findUndecodableEvents();

    /** @return completes when every stored event decodes (S25) */
    Mono<Void> validateStoredEvents();
}
