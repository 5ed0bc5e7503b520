package dev.durablestore.api;

import reactor.core.publisher.Mono;

/**
 * The whole store: history, timers and outbox. Components that need less should depend on the
 * narrower {@link EventStore}, {@link TimerStore} or {@link OutboxStore}.
 *
 * <p>{@link #close()} (or {@link #closeAsync()}, which does not block) ends claim streams, lets
 * queued writes finish, then releases the store's connections and threads; an operation subscribed
 * afterwards fails with {@link StoreClosedException}.
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

    /**
     * Commits one step of a workflow in one transaction (W1–W12): under the workflow's expected
     * head, appends the step's events, stages its rows (insert-or-ignore by key), settles its
     * claimed rows, fenced by their claims, and schedules or cancels its timers. All of it commits
     * or none of it does; the claim streams are woken after a commit that staged or retried rows.
     *
     * @param step the step, built and checked by {@link WorkflowStep.Builder#build()}
     * @return completes when the whole step is durable; fails, writing nothing, with
     *     {@link SequenceConflictException} when the head differs from the step's expected head,
     *     {@link StaleClaimException} when a settled row's claim is no longer current,
     *     {@link InvalidArgumentException} naming the part ({@code events[1]}, {@code rows[0].namespace},
     *     {@code timers[0].timerId}, {@code settles[1].delay} for a retry delay that takes the row's
     *     visibility past the latest storable instant) that cannot be stored, {@link SerializationException} when an
     *     event cannot be encoded, and {@link BackendException} for a non-contiguous batch or a
     *     storage failure
     */
    Mono<Void> commitStep(WorkflowStep step);

    /**
     * Closes the store without blocking the caller: ends every claim stream with
     * {@link StoreClosedException} (each first releasing the rows it claimed and had not
     * delivered: pending again, same attempt, visible at once), lets queued writes finish, answers
     * every queued read with {@link StoreClosedException}, then closes connections and threads.
     * Every operation subscribed before, during or after the close terminates: with its result or
     * with {@link StoreClosedException}. Idempotent: every call returns the same completion.
     *
     * @return completes when the store is closed; subscribing starts the close
     */
    Mono<Void> closeAsync();

    /**
     * Closes the store as {@link #closeAsync()} does and waits for it. On a non-blocking thread
     * (Reactor's {@code parallel} scheduler, the store's own threads) it does not wait: it starts
     * the close and returns at once, since parking such a thread would stall every pipeline
     * scheduled on it; subscribe to {@link #closeAsync()} there to know when the close is done.
     * Idempotent.
     */
    @Override
    void close();
}
