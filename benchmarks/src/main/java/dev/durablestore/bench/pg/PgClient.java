package dev.durablestore.bench.pg;

import dev.durablestore.r2dbc.internal.StoreStatements;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * One PostgreSQL client as {@code PGCLIENT} drives it: the store's statements
 * ({@link StoreStatements}) sent as they are, each call one statement on a connection of the
 * client's own pool, with a {@link Mono} of its outcome. A client does what a store backend would do
 * with it and nothing more: binds the values, sends the statement, reads every column of what comes
 * back into plain Java values.
 */
interface PgClient extends AutoCloseable {

    /** @return the client and its settings, in words */
    String label();

    /** @return how this client is sent the arrays of a staging statement */
    StoreStatements.ArrayForm arrayForm();

    /**
     * Runs a claim ({@link StoreStatements#claim}).
     *
     * @param claim the statement and its values
     * @return the claimed rows (none when the one row of only {@code next_due} came back)
     */
    Mono<List<ClaimedRow>> claim(StoreStatements.Bound claim);

    /**
     * Runs a statement that returns keys ({@link StoreStatements#completeAll}).
     *
     * @param statement the statement and its values
     * @return the first column of every row it returned
     */
    Mono<List<String>> keys(StoreStatements.Bound statement);

    /**
     * Runs a statement that changes rows.
     *
     * @param update the statement and its values
     * @return the rows it changed
     */
    Mono<Long> update(StoreStatements.Bound update);

    /** Closes the client's connections and threads. */
    @Override
    void close();

    /**
     * One claimed row, every column the store's claim returns read into Java values (the input
     * still as hex text, as the store receives it).
     *
     * @param dispatchKey the row's key
     * @param workflowId its workflow
     * @param ordinal its ordinal
     * @param runId its run, or null
     * @param namespace its namespace
     * @param taskQueue its task queue
     * @param node its node, or null
     * @param activityType its activity type
     * @param inputHex its input as hex text
     * @param attempt its attempt
     * @param visibleAfter its visibility time
     * @param traceContext its trace context, or null
     * @param priority its priority
     * @param failures its failure history, or null
     * @param nextDue the route's next due time the claim read, or null
     */
    record ClaimedRow(
            String dispatchKey,
            String workflowId,
            Long ordinal,
            String runId,
            String namespace,
            String taskQueue,
            String node,
            String activityType,
            String inputHex,
            Long attempt,
            Long visibleAfter,
            String traceContext,
            Integer priority,
            String failures,
            Long nextDue) {}
}
