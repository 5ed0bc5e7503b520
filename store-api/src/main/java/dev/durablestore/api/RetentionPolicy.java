package dev.durablestore.api;

import dev.durablestore.api.internal.StoredText;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How long closed workflows are kept before {@link OperatorStore#sweepRetention} deletes them
 * (rules D1–D12 of docs/contract.md): a default retention, optional longer or shorter ones per
 * namespace, and optionally how long settled outbox rows are kept.
 *
 * <p>A workflow is <em>closed</em> when its status (R10) is terminal; its <em>close time</em> is
 * the recorded instant of its last lifecycle event (M9). Its <em>namespaces</em> are those of its
 * stored outbox rows: with rows in several namespaces it keeps the longest of their retentions
 * ({@link #retentionFor}), and with none it gets the default.
 *
 * <p>Immutable and validated when built: each {@code with*} method returns a checked copy and
 * leaves this one unchanged, so its result must be used.
 *
 * <pre>{@code
 * RetentionPolicy policy = RetentionPolicy.closedFor(Duration.ofDays(7))
 *         .withNamespace("billing", Duration.ofDays(400))
 *         .withSettledRows(Duration.ofDays(2));
 * }</pre>
 */
public final class RetentionPolicy {

    private final Duration closedFor;
    private final Map<String, Duration> namespaces;
    private final Duration settledRows;

    private RetentionPolicy(Duration closedFor, Map<String, Duration> namespaces, Duration settledRows) {
        this.closedFor = closedFor;
        this.namespaces = namespaces;
        this.settledRows = settledRows;
    }

    /**
     * @param closedFor how long a closed workflow is kept after its close time, when none of its
     *     namespaces has a retention of its own; positive
     * @return a policy with that default retention, no per-namespace retention and no pruning of
     *     settled rows
     * @throws InvalidArgumentException naming {@code closedFor} when null, zero or negative
     */
    public static RetentionPolicy closedFor(Duration closedFor) {
        return new RetentionPolicy(InvalidArgumentException.requirePositive(closedFor, "closedFor"), Map.of(), null);
    }

    /**
     * @param namespace an outbox namespace, a text a row can hold (X10)
     * @param retention how long a closed workflow with a row in {@code namespace} is kept; positive.
     *     Replaces an earlier retention of the same namespace
     * @return a copy with the namespace's retention set
     * @throws InvalidArgumentException naming {@code namespace} when null, empty or not storable,
     *     or {@code retention} when null, zero or negative
     */
    public RetentionPolicy withNamespace(String namespace, Duration retention) {
        InvalidArgumentException.requireNonEmpty(namespace, "namespace");
        StoredText.require(namespace, "namespace");
        InvalidArgumentException.requirePositive(retention, "retention");
        Map<String, Duration> copy = new TreeMap<>(namespaces);
        copy.put(namespace, retention);
        return new RetentionPolicy(closedFor, Map.copyOf(copy), settledRows);
    }

    /**
     * @param retention how long a settled outbox row ({@code DONE}, {@code FAILED},
     *     {@code CANCELLED}) is kept after it settled, whatever its workflow's status: each sweep
     *     also prunes older ones ({@link OperatorStore#pruneSettled}); positive
     * @return a copy with the settled-row retention set
     * @throws InvalidArgumentException naming {@code settledRows} when null, zero or negative
     */
    public RetentionPolicy withSettledRows(Duration retention) {
        return new RetentionPolicy(
                closedFor, namespaces, InvalidArgumentException.requirePositive(retention, "settledRows"));
    }

    /** @return the retention of a closed workflow none of whose namespaces has one of its own */
    public Duration closedFor() {
        return closedFor;
    }

    /** @return the retention of each namespace that has one of its own; unmodifiable */
    public Map<String, Duration> namespaces() {
        return namespaces;
    }

    /** @return how long settled outbox rows are kept, or {@code null} when they are not pruned */
    public Duration settledRows() {
        return settledRows;
    }

    /**
     * The retention of a workflow with outbox rows in {@code workflowNamespaces} (D3).
     *
     * @param workflowNamespaces the namespaces of its stored rows; empty for a workflow without rows
     * @return the longest retention among them (the default for a namespace without its own), or
     *     the default for none
     * @throws InvalidArgumentException naming {@code workflowNamespaces} when null or holding null
     */
    public Duration retentionFor(Collection<String> workflowNamespaces) {
        InvalidArgumentException.requireNonNull(workflowNamespaces, "workflowNamespaces");
        Duration longest = null;
        for (String namespace : workflowNamespaces) {
            InvalidArgumentException.requireNonNull(namespace, "workflowNamespaces[]");
            Duration own = namespaces.getOrDefault(namespace, closedFor);
            if (longest == null || own.compareTo(longest) > 0) {
                longest = own;
            }
        }
        return longest == null ? closedFor : longest;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetentionPolicy p
                && closedFor.equals(p.closedFor)
                && namespaces.equals(p.namespaces)
                && Objects.equals(settledRows, p.settledRows);
    }

    @Override
    public int hashCode() {
        return Objects.hash(closedFor, namespaces, settledRows);
    }

    @Override
    public String toString() {
        return "RetentionPolicy[closedFor=" + closedFor + ", namespaces=" + new TreeMap<>(namespaces) + ", settledRows="
                + settledRows + "]";
    }
}
