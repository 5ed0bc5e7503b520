package dev.durablestore.api.observation;

import dev.durablestore.api.OutboxRow;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import java.util.List;

/**
 * The context of a {@value StoreObservations#CLAIM} observation: a client observation (nothing to
 * inject) that holds, once the claim returned and before the observation stops, the rows it took,
 * so that {@link ClaimLinksObservationHandler} can link the claim's span to each row's stored
 * trace context.
 */
final class ClaimContext extends SenderContext<Object> {

    /** Set by the claim's subscriber thread, read by the handlers at stop (maybe on another thread). */
    private volatile List<OutboxRow> claimed = List.of();

    ClaimContext() {
        super((carrier, key, value) -> { }, Kind.CLIENT);
    }

    /** @param rows the rows the claim returned (kept, not copied) */
    void claimed(List<OutboxRow> rows) {
        this.claimed = rows == null ? List.of() : rows;
    }

    /** @return the rows the claim returned; empty until it returned, or when it failed */
    List<OutboxRow> claimed() {
        return claimed;
    }
}
