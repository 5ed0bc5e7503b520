package dev.durablestore.api.spi;

import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Wake-ups for idle claim streams: signalled after this instance commits anything that may have
 * made rows claimable (staging, retry, re-arm, redrive), and on PostgreSQL also when another node's
 * {@code NOTIFY} arrives, so a stream does not wait for its poll interval.
 */
public final class Wakeups implements Runnable {

    private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** Wakes every registered stream. */
    @Override
    public void run() {
        for (Runnable r : listeners) {
            r.run();
        }
    }

    /**
     * @param listener called on every wake-up; must not block
     * @return unregisters it
     */
    public Runnable register(Runnable listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }
}
