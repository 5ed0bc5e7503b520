package dev.durablestore.api.spi;

import dev.durablestore.api.StoreClosedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import reactor.core.publisher.Mono;

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
         * Ends the stream with {@code error} and releases what it claimed and did not deliver.
         *
         * @param error the error the subscriber receives
         * @return completes when no claim of the stream is in flight and its releases are done
         */
        Mono<Void> close(StoreClosedException error);
    }

    private final CopyOnWriteArrayList<Stream> streams = new CopyOnWriteArrayList<>();
    private volatile StoreClosedException closed;

    /** Wakes every registered stream. */
    @Override
    public void run() {
        for (Stream s : streams) {
            s.wake();
        }
    }

    /**
     * Registers a stream; once the store is closing, the stream is ended at once instead.
     *
     * @param stream the stream
     * @return unregisters it
     */
    public Runnable register(Stream stream) {
        streams.add(stream);
        StoreClosedException error = closed;
        if (error != null && streams.remove(stream)) {
            stream.close(error).subscribe();
        }
        return () -> streams.remove(stream);
    }

    /**
     * Ends every stream registered now or later with {@code error}.
     *
     * @param error what each stream's subscriber receives
     * @return completes when every stream's claims have returned and its undelivered rows are released
     */
    public Mono<Void> close(StoreClosedException error) {
        return Mono.defer(() -> {
            closed = error;
            List<Mono<Void>> ends = new ArrayList<>();
            for (Stream s : streams) {
                if (streams.remove(s)) {
                    ends.add(s.close(error));
                }
            }
            return Mono.when(ends);
        });
    }
}
