package dev.durablestore.api;

/**
 * A dispatch route (O7): rows of one namespace and task queue, optionally pinned to a node. A scope
 * with node {@code N} admits rows pinned to {@code N} and unpinned rows; a scope without a node
 * admits only unpinned rows.
 *
 * <p>A scope whose namespace or task queue the store could not keep (a NUL, an unpaired UTF-16
 * surrogate, more than 1,024 UTF-8 bytes:
 * rule X10) admits no stored row, so claims on it take nothing;
 * a node the store could not keep pins no row, so such a scope admits the unpinned rows only.
 *
 * @param namespace non-empty namespace
 * @param taskQueue non-empty task queue
 * @param node the dispatcher's node, or {@code null}
 */
public record ClaimScope(String namespace, String taskQueue, String node) {
    /**
     * Validates the components (see the record's description).
     *
     * @param namespace non-empty namespace
     * @param taskQueue non-empty task queue
     * @param node see the record component
     */
    public ClaimScope {
        InvalidArgumentException.requireNonEmpty(namespace, "scope.namespace");
        InvalidArgumentException.requireNonEmpty(taskQueue, "scope.taskQueue");
        if (node != null && node.isEmpty()) {
            throw new InvalidArgumentException("scope.node", "must be null or non-empty");
        }
    }

    /**
     * @param namespace the namespace
     * @param taskQueue the task queue
     * @return an unpinned scope
     */
    public static ClaimScope of(String namespace, String taskQueue) {
        return new ClaimScope(namespace, taskQueue, null);
    }

    /**
     * Tells whether this scope admits a row (O7).
     *
     * @param row a row
     * @return true when namespace and task queue are equal and the row is unpinned or pinned to this node
     */
    public boolean admits(OutboxRow row) {
        return namespace.equals(row.namespace())
                && taskQueue.equals(row.taskQueue())
                && (row.node() == null || row.node().equals(node));
    }
}
