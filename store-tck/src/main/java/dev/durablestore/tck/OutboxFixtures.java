package dev.durablestore.tck;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.api.internal.Rows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Values the outbox contract tests build rows and events from: fixed, text-ordered workflow ids,
 * rows with a chosen route and visibility, and the two or three events an {@code appendWithOutbox}
 * needs.
 */
final class OutboxFixtures {

    /** The activity type of rows built here unless a test names another. */
    static final String ACTIVITY = "charge";

    /** The run id the events built here carry. */
    static final RunId RUN = RunId.parse("00000000-0000-4000-8000-0000000000aa");

    private OutboxFixtures() {}

    /**
     * @param n a small number
     * @return a workflow id whose canonical text ends with {@code n} in 12 zero-padded digits, so
     *     ids sort by text in the order of {@code n}
     */
    static WorkflowId workflow(long n) {
        return WorkflowId.parse(String.format("00000000-0000-4000-8000-%012d", n));
    }

    /**
     * @param workflowId the workflow
     * @param ordinal the ordinal
     * @return the JSON input the rows built here carry, distinct per row
     */
    static Payload input(WorkflowId workflowId, long ordinal) {
        return Payload.json("{\"workflow\":\"" + workflowId + "\",\"ordinal\":" + ordinal + "}");
    }

    /**
     * @param workflowId the workflow
     * @param ordinal the ordinal
     * @param visibleAfter the earliest claim instant
     * @return a fresh pending row on the default route (O5)
     */
    static OutboxRow row(WorkflowId workflowId, long ordinal, Instant visibleAfter) {
        return OutboxRow.pending(workflowId, ordinal, ACTIVITY, input(workflowId, ordinal), visibleAfter);
    }

    /**
     * @param workflowId the workflow
     * @param ordinal the ordinal
     * @param visibleAfter the earliest claim instant
     * @param namespace the namespace
     * @param taskQueue the task queue
     * @param node the node, or {@code null}
     * @return a fresh pending row on the given route
     */
    static OutboxRow routed(
            WorkflowId workflowId,
            long ordinal,
            Instant visibleAfter,
            String namespace,
            String taskQueue,
            String node) {
        return row(workflowId, ordinal, visibleAfter).withRoute(namespace, taskQueue, node);
    }

    /**
     * @param row a row
     * @param status the status to give it
     * @param claimedAt the claim instant ({@code null} unless {@code status} is {@code CLAIMED})
     * @param attempt the dispatch count
     * @return a copy of {@code row} in that state, consistent with O6 when the caller respects it
     */
    static OutboxRow inState(OutboxRow row, OutboxStatus status, Instant claimedAt, int attempt) {
        return row.withStatus(status, claimedAt).withAttempt(attempt);
    }

    /**
     * @param workflowId the workflow
     * @param seq the sequence number
     * @param at the recording instant
     * @return a {@code WorkflowStarted} event
     */
    static Event started(WorkflowId workflowId, long seq, Instant at) {
        return new WorkflowStarted(
                new EventEnvelope(seq, at, workflowId),
                "checkout",
                Payload.json("{}"),
                RUN,
                null,
                new PackageVersion("v1"));
    }

    /**
     * @param workflowId the workflow
     * @param seq the sequence number
     * @param at the recording instant
     * @return a {@code SignalReceived} event
     */
    static Event signal(WorkflowId workflowId, long seq, Instant at) {
        return new SignalReceived(new EventEnvelope(seq, at, workflowId), "poke", Payload.json("{}"));
    }

    /**
     * @param rows rows
     * @return their dispatch keys, in the same order
     */
    static List<String> keys(Collection<OutboxRow> rows) {
        List<String> keys = new ArrayList<>(rows.size());
        for (OutboxRow row : rows) {
            keys.add(row.dispatchKey());
        }
        return keys;
    }

    /**
     * @param namespace the namespace
     * @param taskQueue the task queue
     * @param node the node, or {@code null}
     * @return the scope
     */
    static ClaimScope scope(String namespace, String taskQueue, String node) {
        return new ClaimScope(namespace, taskQueue, node);
    }

    /**
     * The row without its claim token: claims write a random token (O20, issue 19), so a test that
     * compares a claimed row with one it built compares everything else.
     */
    static OutboxRow withoutToken(OutboxRow row) {
        return row.status() == dev.durablestore.api.OutboxStatus.CLAIMED ? Rows.withClaimToken(row, 0) : row;
    }

    /** {@link #withoutToken} of each row, in order. */
    static java.util.List<OutboxRow> withoutTokens(java.util.List<OutboxRow> rows) {
        return rows.stream().map(OutboxFixtures::withoutToken).toList();
    }
}
