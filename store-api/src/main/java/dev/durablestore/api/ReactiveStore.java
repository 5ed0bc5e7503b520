package dev.durablestore.api;

/**
 * The whole store: history, timers and outbox. Components that need less should depend on the
 * narrower {@link EventStore}, {@link TimerStore} or {@link OutboxStore}.
 *
 * <p>{@link #close()} lets queued writes finish, then releases the store's connections and threads;
 * an operation subscribed afterwards fails with {@link StoreClosedException}.
 *
 * <p><b>Cancelling a write.</b> Every write is a cold {@code Mono}: nothing happens until it is
 * subscribed. Cancelling the subscription while the write still waits for its turn withdraws it;
 * once its transaction has begun the write may still commit (or be rolled back), and the cancelled
 * subscriber is not told which. A caller that cancels (a {@code timeout}, a {@code take}, a
 * disposed pipeline) and needs the outcome reads it back, e.g. with {@link #readHead} or
 * {@link #rowState}; retrying an append with the same expected head is safe either way (it fails
 * with {@link SequenceConflictException} if the first one committed).
 */
public interface ReactiveStore extends EventStore, TimerStore, OutboxStore, AutoCloseable {

    /** Finishes queued writes, then closes connections and threads. Idempotent. */
    @Override
    void close();
}
