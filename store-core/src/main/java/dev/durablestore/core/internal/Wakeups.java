package dev.durablestore.core.internal;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.StoreClosedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The store's live claim streams. Wakes them after this instance commits anything that may have
 * made rows claimable (staging, retry, re-arm, redrive), and on PostgreSQL also when another node's
 * {@code NOTIFY} arrives, so a stream does not wait for its poll interval; and ends them all when
 * the store closes (X9), each releasing the rows it claimed and did not deliver.
 */
public final class Wakeups implements Runnable {

    /** One live claim stream, as the store sees it. */
    public interface Stream {
        /** Called on every wake-up; must not block. */
        void wake();

        /**
         * @return true when a settle may make rows claimable for this stream (it claims under a
         *     constraining {@link dev.durablestore.api.DispatchPolicy}: a completed row frees its
         *     workflow), so {@link Wakeups#settled()} wakes it too
         */
        default boolean wakesOnSettle() {
            return false;
        }

        /**
         * Ends the stream with {@code error} and releases what it claimed and did not deliver.
         *
         * @param error the error the subscriber receives
         * @return completes when no claim of the stream is in flight and its releases are done
         */
        Mono<Void> close(StoreClosedException error);
    }

    private static final Logger log = LoggerFactory.getLogger(Wakeups.class);

    private final CopyOnWriteArrayList<Stream> streams = new CopyOnWriteArrayList<>();
    private volatile StoreClosedException closed;
    /** How many registered streams wake on settles (so a settle with none costs one read). */
    private final java.util.concurrent.atomic.AtomicInteger settleStreams =
            new java.util.concurrent.atomic.AtomicInteger();

    /** Wakes every registered stream. */
    @Override
    public void run() {
        for (Stream s : streams) {
            s.wake();
        }
    }

    /**
     * @return true when a registered stream {@linkplain Stream#wakesOnSettle() waits for settles}:
     *     a backend may skip handing {@link #settled()} to another thread when none does
     */
    public boolean waitsForSettles() {
        return settleStreams.get() > 0;
    }

    /**
     * Wakes the streams that {@linkplain Stream#wakesOnSettle() wait for settles}: called by the
     * backend after a commit that took rows out of {@code claimed} (complete, fail, cancel, a step's
     * settles). Streams without a dispatch policy are not woken: a settle makes nothing claimable
     * for them.
     */
    public void settled() {
        if (settleStreams.get() == 0) {
            return;
        }
        for (Stream s : streams) {
            if (s.wakesOnSettle()) {
                s.wake();
            }
        }
    }

    /**
     * {@link #settled()} on Reactor's parallel scheduler, so the caller (a commit's signal, a
     * notification listener) does not run the streams' claims; nothing when no stream waits for
     * settles (one read).
     */
    public void settledLater() {
        if (waitsForSettles()) {
            Schedulers.parallel().schedule(this::settled);
        }
    }

    /**
     * Registers a stream; once the store is closing, the stream is ended at once instead. A stream
     * registers before it sends its first claim and unregisters only once it has settled (ended,
     * no claim in flight, releases done), even when its subscriber cancelled it long before:
     * {@link #close} waits only for the streams it finds, so a claim of a stream not registered
     * could outlast the close and its rows' release be refused.
     *
     * @param stream the stream
     * @return unregisters it
     */
    public Runnable register(Stream stream) {
        boolean settles = stream.wakesOnSettle();
        if (settles) {
            settleStreams.incrementAndGet();
        }
        streams.add(stream);
        StoreClosedException error = closed;
        if (error != null && removed(stream, settles)) {
            stream.close(error).subscribe();
        }
        return () -> removed(stream, settles);
    }

    @CanIgnoreReturnValue // the unregistering callback needs no answer
    private boolean removed(Stream stream, boolean settles) {
        boolean removed = streams.remove(stream);
        if (removed && settles) {
            settleStreams.decrementAndGet();
        }
        return removed;
    }

    /**
     * Ends every stream registered now or later with {@code error}, and waits for them to settle.
     *
     * @param error what each stream's subscriber receives
     * @param wait how long to wait for claims in flight and releases; past it, what the streams
     *     still hold is left to the lease reaper (logged)
     * @return completes when every stream's claims have returned and its undelivered rows are
     *     released, or after {@code wait}
     */
    public Mono<Void> close(StoreClosedException error, Duration wait) {
        return Mono.defer(() -> {
                    closed = error;
                    List<Mono<Void>> ends = new ArrayList<>();
                    for (Stream s : streams) {
                        if (removed(s, s.wakesOnSettle())) {
                            ends.add(s.close(error));
                        }
                    }
                    return Mono.when(ends);
                })
                .timeout(
                        wait,
                        Mono.fromRunnable(() -> log.warn(
                                "claim streams did not settle in {} ({}); the lease "
                                        + "reaper re-arms the rows they held",
                                wait,
                                error.getMessage())));
    }

    /**
     * What a store's {@code close()} does with its {@code closeAsync()}: waits for it, except on a
     * non-blocking thread, where parking would stall every pipeline on that thread: there it
     * starts the close and returns.
     *
     * @param closing the store's close, cached so every call shares one
     * @param store names the store in a failure's log line
     */
    public static void closeOrStart(Mono<Void> closing, Object store) {
        if (Schedulers.isInNonBlockingThread()) {
            closing.subscribe(null, e -> log.warn("closing {} failed", store, e));
        } else {
            closing.block();
        }
    }
}
