package dev.durablestore.sqlite.internal;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Committed heads of recently appended workflows, so an append's guard (E3) usually needs no
 * {@code SELECT max(seq)}. Used only by the writer's leading thread (the lead moves with a
 * happens-before edge, see {@link Writer}).
 *
 * <p>Correct with other processes on the same file: at the start of every transaction (write lock
 * held) it reads {@code PRAGMA data_version}, which changes exactly when another connection has
 * committed, and forgets everything when it did. Heads advanced inside a transaction are kept
 * apart until the commit returns, and dropped on rollback.
 */
final class HeadCache implements Writer.TransactionListener {

    private final Map<String, Long> committed;
    private final Map<String, Long> inTransaction = new HashMap<>();
    private long dataVersion = Long.MIN_VALUE;

    HeadCache(int capacity) {
        this.committed = new LinkedHashMap<>(Math.min(capacity, 1 << 16), 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > capacity;
            }
        };
    }

    /**
     * @param c the write connection, inside the transaction
     * @param workflowId the workflow's canonical text
     * @return its head as this transaction sees it
     * @throws SQLException when the fallback read fails
     */
    long head(DbConnection c, String workflowId) throws SQLException {
        Long head = known(workflowId);
        if (head == null) {
            // no write of this workflow in the open transaction yet: what we read is committed state
            head = EventRows.head(c, workflowId);
            committed.put(workflowId, head);
        }
        return head;
    }

    /**
     * @param workflowId the workflow's canonical text
     * @return its head as this transaction sees it when written in it or cached, else {@code null}
     *     (nothing read)
     */
    Long known(String workflowId) {
        Long head = inTransaction.get(workflowId);
        return head != null ? head : committed.get(workflowId);
    }

    /**
     * Records a head advanced by a write of the open transaction.
     *
     * @param workflowId the workflow's canonical text
     * @param head its new head
     */
    void advanced(String workflowId, long head) {
        inTransaction.put(workflowId, head);
    }

    @Override
    public void afterBegin(DbConnection c) throws SQLException {
        long version = c.queryLong("PRAGMA data_version");
        if (version != dataVersion) {
            committed.clear(); // another connection committed: any cached head may be stale
            dataVersion = version;
        }
    }

    @Override
    public void afterCommit() {
        committed.putAll(inTransaction);
        inTransaction.clear();
    }

    @Override
    public void afterRollback() {
        inTransaction.clear();
    }
}
