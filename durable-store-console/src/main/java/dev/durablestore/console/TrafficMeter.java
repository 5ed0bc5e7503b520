package dev.durablestore.console;

import dev.durablestore.api.ReactiveStore;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the rows staged, claimed and settled through a store that {@link #wrap wraps}, for the
 * console's live rates. The counts are of this process only; the console samples them once a
 * second and streams the differences as server-sent events.
 *
 * <pre>{@code
 * TrafficMeter meter = new TrafficMeter();
 * ReactiveStore store = meter.wrap(SqliteReactiveStore.open(config));   // the application uses this one
 * DurableConsole console = DurableConsole.builder(store).withMeter(meter).build();
 * }</pre>
 */
public final class TrafficMeter {

    private final LongAdder staged = new LongAdder();
    private final LongAdder claimed = new LongAdder();
    private final LongAdder settled = new LongAdder();

    /** A meter with every count at 0. */
    public TrafficMeter() {}

    /**
     * @param store the store to count
     * @return a store that passes every call to {@code store} and counts its rows here
     */
    public ReactiveStore wrap(ReactiveStore store) {
        Objects.requireNonNull(store, "store");
        if (store instanceof MeteredStore) {
            return store;
        }
        return new MeteredStore(store, this);
    }

    /**
     * @param store a store, metered or not
     * @return the store a meter wraps, or {@code store} itself when it is not metered (to name the
     *     backend, e.g. in a health report)
     */
    public static ReactiveStore unwrap(ReactiveStore store) {
        return store instanceof MeteredStore metered ? metered.delegate() : store;
    }

    void staged(int rows) {
        staged.add(rows);
    }

    void claimed(int rows) {
        claimed.add(rows);
    }

    void settled(int rows) {
        settled.add(rows);
    }

    /** @return rows staged so far */
    public long staged() {
        return staged.sum();
    }

    /** @return rows claimed so far */
    public long claimed() {
        return claimed.sum();
    }

    /** @return rows settled so far (done, retried, failed, cancelled) */
    public long settled() {
        return settled.sum();
    }
}
