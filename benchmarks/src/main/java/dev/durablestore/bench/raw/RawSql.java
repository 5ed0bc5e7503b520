package dev.durablestore.bench.raw;

/**
 * The statements the store runs, copied as text from {@code EventRows}, {@code OutboxRows},
 * {@code ClaimCommand}, {@code SettleCommand} and {@code OutboxWrites}, plus the one-row claim of
 * the original design (a SELECT, then an UPDATE of the selected row).
 */
public final class RawSql {

    /** The store's event insert. */
    public static final String INSERT_EVENT = "INSERT INTO events "
            + "(workflow_id, seq, event, recorded_at, kind, queryable, workflow_type, child_workflow_id) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

    /** The store's head read (the expected-sequence guard). */
    public static final String HEAD = "SELECT max(seq) FROM events WHERE workflow_id = ?";

    /** The columns every row-returning outbox statement selects. */
    public static final String COLUMNS = "dispatch_key, workflow_id, ordinal, run_id, namespace, task_queue, node, "
            + "activity_type, input, status, attempt, visible_after, claimed_at";

    /** The store's staging insert. */
    public static final String INSERT_OR_IGNORE_ROW = "INSERT OR IGNORE INTO outbox (dispatch_key, workflow_id, "
            + "ordinal, run_id, namespace, task_queue, node, activity_type, input, status, attempt, visible_after, "
            + "claimed_at, settled_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /** The store's batch claim (unscoped, nothing held): claimed_at, now, limit. */
    public static final String CLAIM_BATCH =
            "UPDATE outbox SET status = 'claimed', claimed_at = ? WHERE dispatch_key IN "
                    + "(SELECT dispatch_key FROM outbox WHERE status = 'pending' AND visible_after <= ?"
                    + " ORDER BY visible_after, dispatch_key LIMIT ?) RETURNING " + COLUMNS;

    /**
     * The store's batch claim under {@code serialPerWorkflow} (O63, {@code ClaimCommand.SERIAL}):
     * claimed_at, now, limit.
     */
    public static final String CLAIM_BATCH_SERIAL = "UPDATE outbox SET status = 'claimed', claimed_at = ? "
            + "WHERE dispatch_key IN (SELECT dispatch_key FROM outbox WHERE status = 'pending' AND visible_after <= ?"
            + " AND NOT EXISTS (SELECT 1 FROM outbox s WHERE s.workflow_id = outbox.workflow_id AND (s.status = "
            + "'claimed' OR (s.status = 'pending' AND (s.ordinal < outbox.ordinal OR (s.ordinal = outbox.ordinal "
            + "AND s.dispatch_key < outbox.dispatch_key)))))"
            + " ORDER BY visible_after, dispatch_key LIMIT ?) RETURNING " + COLUMNS;

    /** The original's one-row claim, step 1: the oldest due row. */
    public static final String SELECT_ONE_DUE = "SELECT " + COLUMNS + " FROM outbox WHERE status = 'pending' "
            + "AND visible_after <= ? ORDER BY visible_after, dispatch_key LIMIT 1";

    /** The original's one-row claim, step 2: flip it. */
    public static final String CLAIM_ONE =
            "UPDATE outbox SET status = 'claimed', claimed_at = ? " + "WHERE dispatch_key = ? AND status = 'pending'";

    /** The store's complete: settled_at, key. */
    public static final String COMPLETE = "UPDATE outbox SET status = 'done', claimed_at = NULL, settled_at = ? "
            + "WHERE dispatch_key = ? AND status IN ('pending', 'claimed')";

    /** The store's grouped complete (adjacent completes of a batch): settled_at, JSON array of keys. */
    public static final String COMPLETE_MANY = "UPDATE outbox SET status = 'done', claimed_at = NULL, settled_at = ? "
            + "WHERE dispatch_key IN (SELECT value FROM json_each(?)) AND status IN ('pending', 'claimed')";

    /**
     * The store's batch claim as it is now, writing a claim token (W5) and returning it last:
     * claimed_at, token, now, limit.
     */
    public static final String CLAIM_BATCH_FENCED = "UPDATE outbox SET status = 'claimed', claimed_at = ?, "
            + "claim_token = ? WHERE dispatch_key IN (SELECT dispatch_key FROM outbox WHERE status = 'pending' "
            + "AND visible_after <= ? ORDER BY visible_after, dispatch_key LIMIT ?) RETURNING " + COLUMNS
            + ", claim_token";

    /** The store's fenced settle (W6, {@code FencedSettles}): status, settled_at, key, claim token. */
    public static final String SETTLE_FENCED = "UPDATE outbox SET status = ?, claimed_at = NULL, settled_at = ? "
            + "WHERE dispatch_key = ? AND status = 'claimed' AND claim_token = ?";

    private RawSql() {}
}
