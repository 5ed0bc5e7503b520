package dev.durablestore.api.internal;

import dev.durablestore.api.AttemptFailure;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.WorkflowId;
import java.time.Instant;
import java.util.List;

/**
 * Builds {@link OutboxRow}s the way only the store may: a row read back from storage with every
 * field at once (one allocation per row on the claim path, not a copy per field), and a row under a
 * claim token for the kit's fencing checks. {@code OutboxRow} has no public constructor; it hands
 * this class its builder when it is initialized (the JDK's {@code SharedSecrets} pattern). For the
 * store modules; this package is exported only to them.
 */
public final class Rows {

    /** What {@link OutboxRow} gives this class. */
    public interface Access {
        /**
         * @return the row with every field as given, each checked on its own
         * @param dispatchKey see {@link OutboxRow#dispatchKey()}
         * @param workflowId see {@link OutboxRow#workflowId()}
         * @param ordinal see {@link OutboxRow#ordinal()}
         * @param runId see {@link OutboxRow#runId()}
         * @param namespace see {@link OutboxRow#namespace()}
         * @param taskQueue see {@link OutboxRow#taskQueue()}
         * @param node see {@link OutboxRow#node()}
         * @param activityType see {@link OutboxRow#activityType()}
         * @param input see {@link OutboxRow#input()}
         * @param status see {@link OutboxRow#status()}
         * @param attempt see {@link OutboxRow#attempt()}
         * @param visibleAfter see {@link OutboxRow#visibleAfter()}
         * @param claimedAt see {@link OutboxRow#claimedAt()}
         * @param claimToken see {@link OutboxRow#claimToken()}
         * @param traceContext see {@link OutboxRow#traceContext()}
         * @param priority see {@link OutboxRow#priority()}
         * @param failures see {@link OutboxRow#failures()}
         */
        OutboxRow stored(
                String dispatchKey,
                WorkflowId workflowId,
                long ordinal,
                RunId runId,
                String namespace,
                String taskQueue,
                String node,
                String activityType,
                Payload input,
                OutboxStatus status,
                int attempt,
                Instant visibleAfter,
                Instant claimedAt,
                long claimToken,
                String traceContext,
                int priority,
                List<AttemptFailure> failures);

        /**
         * @param row a row
         * @param claimToken the token
         * @return a copy of {@code row} under the token
         */
        OutboxRow withClaimToken(OutboxRow row, long claimToken);
    }

    private static volatile Access access;

    private Rows() {}

    /**
     * Called once, by {@link OutboxRow}'s static initializer.
     *
     * @param value the builder
     * @throws IllegalStateException on a second call
     */
    public static synchronized void install(Access value) {
        if (access != null) {
            throw new IllegalStateException("OutboxRow's builder is installed once, by OutboxRow");
        }
        access = value;
    }

    private static Access access() {
        Access a = access;
        if (a == null) {
            try { // OutboxRow's static initializer installs its builder
                Class.forName(OutboxRow.class.getName(), true, OutboxRow.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("OutboxRow cannot be initialized", e);
            }
            a = access;
            if (a == null) {
                throw new IllegalStateException("OutboxRow did not install its builder");
            }
        }
        return a;
    }

    /**
     * A row as a backend read it from storage.
     *
     * @return the row; see {@link Access#stored}
     * @param dispatchKey see {@link OutboxRow#dispatchKey()}
     * @param workflowId see {@link OutboxRow#workflowId()}
     * @param ordinal see {@link OutboxRow#ordinal()}
     * @param runId see {@link OutboxRow#runId()}
     * @param namespace see {@link OutboxRow#namespace()}
     * @param taskQueue see {@link OutboxRow#taskQueue()}
     * @param node see {@link OutboxRow#node()}
     * @param activityType see {@link OutboxRow#activityType()}
     * @param input see {@link OutboxRow#input()}
     * @param status see {@link OutboxRow#status()}
     * @param attempt see {@link OutboxRow#attempt()}
     * @param visibleAfter see {@link OutboxRow#visibleAfter()}
     * @param claimedAt see {@link OutboxRow#claimedAt()}
     * @param claimToken see {@link OutboxRow#claimToken()}
     * @param traceContext see {@link OutboxRow#traceContext()}
     * @param priority see {@link OutboxRow#priority()}
     * @param failures see {@link OutboxRow#failures()}, oldest first
     * @throws dev.durablestore.api.InvalidArgumentException naming the field ({@code row.namespace})
     *     that breaks its own rule
     */
    public static OutboxRow stored(
            String dispatchKey,
            WorkflowId workflowId,
            long ordinal,
            RunId runId,
            String namespace,
            String taskQueue,
            String node,
            String activityType,
            Payload input,
            OutboxStatus status,
            int attempt,
            Instant visibleAfter,
            Instant claimedAt,
            long claimToken,
            String traceContext,
            int priority,
            List<AttemptFailure> failures) {
        return access().stored(
                        dispatchKey,
                        workflowId,
                        ordinal,
                        runId,
                        namespace,
                        taskQueue,
                        node,
                        activityType,
                        input,
                        status,
                        attempt,
                        visibleAfter,
                        claimedAt,
                        claimToken,
                        traceContext,
                        priority,
                        failures);
    }

    /**
     * @param row a row
     * @param claimToken the claim token to give it; non-zero only for a {@code CLAIMED} row
     * @return a copy of {@code row} under the token
     * @throws dev.durablestore.api.InvalidArgumentException naming {@code row.claimToken} when the
     *     token is non-zero and the row is not {@code CLAIMED}
     */
    public static OutboxRow withClaimToken(OutboxRow row, long claimToken) {
        return access().withClaimToken(row, claimToken);
    }
}
