package dev.durablestore.api;

import dev.durablestore.api.event.Event;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Each workflow's event history: appends under an optimistic expected-sequence guard, range reads,
 * status projection, query and run chains (contract groups E and R).
 *
 * <p>Every method returns a cold publisher: nothing touches storage until subscription, and each
 * subscription runs the operation once. Errors arrive as {@code onError} signals of the
 * {@link StoreException} family; nothing is thrown from the calling thread. A success signal is
 * emitted only after the change is durably committed.
 */
public interface EventStore {

    /**
     * Appends events to a workflow's history when its head equals {@code expectedSeq} (E3–E16).
     *
     * <p>Event {@code i} must carry {@code seq == expectedSeq + 1 + i} and the envelope id
     * {@code workflowId}. The workflow type of a {@code WorkflowStarted} or
     * {@code ChildWorkflowStarted} is indexed and must be storable: no NUL, no unpaired UTF-16
     * surrogate, at most 1,024 UTF-8 bytes
     * ({@code events[0].workflowType}, rule X10). The append is
     * all-or-nothing. An empty list under a matching guard
     * succeeds and changes nothing (E5).
     *
     * @param workflowId the workflow
     * @param events the events, in order
     * @param expectedSeq the head the caller last saw (0 for a new workflow)
     * @return completes when the events are durable; fails with {@link SequenceConflictException}
     *     when the head differs, {@link BackendException} for a non-contiguous batch,
     *     {@link SerializationException} when an event cannot be encoded, and
     *     {@link InvalidArgumentException} for bad arguments
     */
    Mono<Void> append(WorkflowId workflowId, List<Event> events, long expectedSeq);

    /**
     * Appends events and stages outbox rows in one transaction (E17–E22): either the events and
     * every insertable row commit together, or nothing does. Rows whose dispatch key is already
     * stored are skipped silently (insert-or-ignore, E21).
     *
     * @param workflowId the workflow
     * @param events the events, in order (may be empty: the guard is still checked, E19)
     * @param expectedSeq the head the caller last saw
     * @param rows the rows to stage; each must satisfy O6
     * @return completes when events and rows are durable; fails as {@link #append}
     */
    Mono<Void> appendWithOutbox(WorkflowId workflowId, List<Event> events, long expectedSeq, List<OutboxRow> rows);

    /**
     * @param workflowId the workflow
     * @return every stored event in ascending {@code seq} order; empty for an unknown workflow (R1, R2)
     */
    Flux<Event> readHistory(WorkflowId workflowId);

    /**
     * Reads the events with {@code seq >= fromSeq} by an index range scan (R3–R8).
     *
     * @param workflowId the workflow
     * @param fromSeq the first sequence wanted; {@code <= 1} reads everything
     * @return the events in ascending {@code seq} order
     */
    Flux<Event> readHistoryFrom(WorkflowId workflowId, long fromSeq);

    /**
     * @param workflowId the workflow
     * @return the committed head (E2): the largest stored {@code seq}, or 0 for an unknown workflow
     */
    Mono<Long> readHead(WorkflowId workflowId);

    /**
     * @return every workflow with at least one event, once each, in ascending id order (R9)
     */
    Flux<WorkflowId> listWorkflowIds();

    /**
     * @return the workflows whose projected status is {@code RUNNING}, in ascending id order (R19)
     */
    Flux<WorkflowId> listActive();

    /**
     * @return the workflows whose projected status is {@code PAUSED}, in ascending id order (R20)
     */
    Flux<WorkflowId> listPaused();

    /**
     * Projects a summary for each workflow that has a {@code WorkflowStarted} and matches the filter
     * (R24–R39).
     *
     * @param filter the filter; {@link WorkflowFilter#all()} matches every started workflow
     * @return the summaries ordered by start time, then workflow id
     */
    Flux<WorkflowSummary> query(WorkflowFilter filter);

    /**
     * Projects the summary of one workflow (R24–R31): the element {@code query(WorkflowFilter.all())}
     * would emit for it, with the same status, start and end times, parent, failed step and
     * failure reason, read in one consistent snapshot of that workflow's events and of the
     * {@code ChildWorkflowStarted} events naming it.
     *
     * @param workflowId the workflow
     * @return the summary, or empty when the workflow is unknown or has no {@code WorkflowStarted};
     *     fails with {@link InvalidArgumentException} when {@code workflowId} is {@code null}
     */
    Mono<WorkflowSummary> readSummary(WorkflowId workflowId);

    /**
     * Splits the history into runs and orders them root first along parent links (R40–R45).
     *
     * @param workflowId the workflow
     * @return the runs; an empty list for an unknown workflow or one with no start event; fails
     *     with {@link BackendException} for a malformed chain
     */
    Mono<List<RunSummary>> readRunChain(WorkflowId workflowId);

    /**
     * Decodes every stored event, ordered by workflow id then {@code seq} (S25).
     *
     * @return completes empty when every event decodes; otherwise fails with a
     *     {@link SerializationException} naming the first undecodable event's workflow and seq
     */
    Mono<Void> validateStoredEvents();

    /**
     * Decodes every stored event and reports each one that does not decode, ordered by workflow id
     * then {@code seq}; read-only. Where {@link #validateStoredEvents()} stops at the first bad
     * row, this finds them all, e.g. to repair or quarantine them.
     *
     * @return every undecodable event; empty when all decode
     */
    Flux<UndecodableEvent> findUndecodableEvents();
}
