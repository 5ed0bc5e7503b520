package dev.durablestore.spring;

import dev.durablestore.api.OutboxRow;
import reactor.core.publisher.Mono;

/**
 * What the starter's dispatcher runs for each claimed outbox row. Declare one as a bean and the
 * starter claims rows (of the route in {@code durablestore.dispatcher.namespace} and
 * {@code task-queue}, or of every route), calls {@link #handle} for each, and settles the row:
 * {@code DONE} when the returned {@code Mono} completes, a retry with exponential backoff when it
 * fails, dead-lettered once {@code durablestore.dispatcher.max-attempts} are used up. Every settle
 * is fenced by the row's claim, so a row re-armed meanwhile by the lease reaper is not settled
 * twice.
 *
 * <pre>{@code
 * @Bean
 * OutboxDispatchHandler sendEmails(Mailer mailer) {
 *     return row -> mailer.send(row.input().asString());
 * }
 * }</pre>
 *
 * <p>A handler that records the outcome in the workflow's history together with the settle (one
 * {@link dev.durablestore.api.ReactiveStore#commitStep} that settles the row) may do so: the
 * dispatcher's own settle then finds the claim no longer current
 * ({@link dev.durablestore.api.StaleClaimException}) and leaves the row as the step left it.
 */
@FunctionalInterface
public interface OutboxDispatchHandler {

    /**
     * Runs the work a row stands for. Subscribed on Reactor's parallel scheduler, never on the
     * store's own threads: do not block. Work that runs longer than the lease
     * ({@code durablestore.reaper.lease}) is re-armed by the reaper and may run twice.
     *
     * @param row the claimed row
     * @return completes when the work is done, fails to have the row retried
     */
    Mono<Void> handle(OutboxRow row);
}
