package dev.durablestore.sqlite.internal;

import dev.durablestore.api.StoreException;
import dev.durablestore.api.StoreMetrics;
import java.sql.SQLException;
import reactor.core.publisher.MonoSink;

/**
 * A command queued on the {@link Writer}, with its subscriber and its outcome in the current
 * transaction. Written by the leading writer thread only (its {@link #cancelled} flag by the
 * subscriber's thread too); {@link TransactionRunner} sets the outcome, and {@link #signal()} tells
 * the subscriber once the transaction ended.
 *
 * @param <T> the command's result type
 */
final class Pending<T> {
    final WriteCommand<T> command;
    final MonoSink<T> sink;
    final StoreMetrics metrics;
    final long queuedAt = System.nanoTime();
    volatile boolean cancelled;
    T value;
    /** A refusal of this command alone (its transaction still commits). */
    Throwable rejection;
    /** The command's outcome is this failure (its writes, if any, were rolled back). */
    Throwable failure;

    Pending(WriteCommand<T> command, MonoSink<T> sink, StoreMetrics metrics) {
        this.command = command;
        this.sink = sink;
        this.metrics = metrics;
    }

    void cancel() {
        cancelled = true;
    }

    void run(DbConnection c) throws SQLException {
        rejection = null;
        value = command.execute(c);
    }

    void reject(StoreException e) {
        value = null;
        rejection = e;
    }

    void fail(Throwable t) {
        failure = t;
    }

    /** Tells the subscriber the outcome; called once, on the leading writer thread (or an emit thread when the writer stops). */
    void signal() {
        Throwable error = failure != null ? failure : rejection;
        metrics.operation(command.name(), System.nanoTime() - queuedAt, error == null);
        if (error != null) {
            sink.error(error);
        } else if (value == null) {
            sink.success();
        } else {
            sink.success(value);
        }
    }
}
