package dev.durablestore.api;

/**
 * The whole store: history, timers and outbox. Components that need less should depend on the
 * narrower {@link EventStore}, {@link TimerStore} or {@link OutboxStore}.
 *
 * <p>{@link #close()} lets queued writes finish, then releases the store's connections and threads;
 * an operation subscribed afterwards fails with {@link StoreClosedException}.
 */
public interface ReactiveStore extends EventStore, TimerStore, OutboxStore, AutoCloseable {

    /** Finishes queued writes, then closes connections and threads. Idempotent. */
    @Override
    void close();
}
