package dev.durablestore.spring;

import dev.durablestore.api.OutboxRow;
import reactor.core.publisher.Mono;

/**
 * Wraps the dispatcher's work on one row: {@link #NONE} runs it as it is; with observations on,
 * {@code StoreObservations.dispatch} runs it in the trace that staged the row.
 */
@FunctionalInterface
interface DispatchObserver {

    /** Runs the work unobserved. */
    DispatchObserver NONE = (row, work) -> work;

    /**
     * @param row the claimed row
     * @param work the handler and the settle
     * @return the work, observed
     */
    Mono<Void> observe(OutboxRow row, Mono<Void> work);
}
