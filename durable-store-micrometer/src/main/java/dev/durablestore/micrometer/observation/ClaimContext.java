package dev.durablestore.micrometer.observation;

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

    private final boolean polled;

    /** Set by the claim's subscriber thread, read by the handlers at stop (maybe on another thread). */
    private volatile List<OutboxRow> claimed = List.of();

    /** The context of a claim a caller asked for. */
    ClaimContext() {
        this(false);
    }

    private ClaimContext(boolean polled) {
        super((carrier, key, value) -> {}, Kind.CLIENT);
        this.polled = polled;
    }

    /** @return the context of a claim a claim stream sent by itself (a poll, a wake-up) */
    static ClaimContext polling() {
        return new ClaimContext(true);
    }

    /**
     * @return true for a claim a claim stream sent by itself: one that took nothing and did not
     *     fail is not worth a span (an idle stream polls), though its timing still counts
     */
    boolean polled() {
        return polled;
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
