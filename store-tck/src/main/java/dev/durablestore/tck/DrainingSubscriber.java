package dev.durablestore.tck;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * A subscriber to a claim stream that drains it as a dispatcher does: it asks for {@code inFlight}
 * rows at first, completes each row it receives through the store, and asks for one more as each
 * complete returns, until it has asked for {@code total} rows in all. Demand thus comes back in
 * bursts from store threads while a claim of the stream is in flight, and the claim reads its limit
 * when it runs (O52). It may cancel the stream in the onNext of a given row.
 */
final class DrainingSubscriber extends BaseSubscriber<OutboxRow> {

    private final ReactiveStore store;
    private final int inFlight;
    private final int total;
    private final int cancelAt;
    private final AtomicInteger requested = new AtomicInteger();
    private final Set<String> delivered = ConcurrentHashMap.newKeySet();
    private final List<String> twice = new CopyOnWriteArrayList<>();
    private final AtomicInteger completed = new AtomicInteger();
    private final AtomicReference<Throwable> error = new AtomicReference<>();

    private DrainingSubscriber(ReactiveStore store, int inFlight, int total, int cancelAt) {
        this.store = store;
        this.inFlight = inFlight;
        this.total = total;
        this.cancelAt = cancelAt;
    }

    /**
     * @param stream the claim stream
     * @param store completes the rows
     * @param inFlight rows asked for at first, and completes in flight at most
     * @param total rows asked for in all
     * @param cancelAt the count of rows at whose onNext the subscriber cancels, or 0 for never
     * @return the subscriber, subscribed
     */
    static DrainingSubscriber drain(
            Flux<OutboxRow> stream, ReactiveStore store, int inFlight, int total, int cancelAt) {
        DrainingSubscriber subscriber = new DrainingSubscriber(store, inFlight, total, cancelAt);
        stream.subscribe(subscriber);
        return subscriber;
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
        ask(inFlight);
    }

    private void ask(int n) {
        int granted = 0;
        while (granted < n) {
            int before = requested.get();
            if (before >= total) {
                break;
            }
            int more = Math.min(n - granted, total - before);
            if (requested.compareAndSet(before, before + more)) {
                granted += more;
            }
        }
        if (granted > 0) {
            request(granted);
        }
    }

    @Override
    protected void hookOnNext(OutboxRow row) {
        if (!delivered.add(row.dispatchKey())) {
            twice.add(row.dispatchKey());
        }
        if (delivered.size() == cancelAt) {
            cancel();
        }
        store.settleKeys(List.of(row.dispatchKey()), Settlement.complete()).subscribe(null, error::set, () -> {
            completed.incrementAndGet();
            ask(1);
        });
    }

    @Override
    protected void hookOnError(Throwable throwable) {
        error.set(throwable);
    }

    /** @return the keys of every row delivered */
    Set<String> delivered() {
        return Set.copyOf(delivered);
    }

    /** @return rows delivered more than once */
    List<String> deliveredTwice() {
        return List.copyOf(twice);
    }

    /** @return true once every delivered row's complete has returned */
    boolean allCompleted() {
        return completed.get() == delivered.size();
    }

    /** @return the rows asked for so far */
    int requested() {
        return requested.get();
    }

    /** @return the stream's error or a complete's, or {@code null} */
    Throwable error() {
        return error.get();
    }
}
