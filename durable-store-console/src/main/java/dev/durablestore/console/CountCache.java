package dev.durablestore.console;

import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.ReactiveStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;

/**
 * The overview counts, counted at most once per TTL however many pages ask (one count in flight at a
 * time, shared), each count capped per status by {@code countByRoute}. Past the TTL the last counts
 * are answered at once while a new count runs, so only the very first page waits for a count.
 */
final class CountCache {

    /** Counts and when they were taken. */
    record Snapshot(OutboxCounts counts, Instant countedAt, Instant dueBy, long tookMillis) {}

    private final ReactiveStore store;
    private final Clock clock;
    private final Duration lease;
    private final Duration ttl;
    private final int cap;
    private final AtomicReference<Snapshot> last = new AtomicReference<>();
    private final AtomicReference<Mono<Snapshot>> inflight = new AtomicReference<>();

    CountCache(ReactiveStore store, Clock clock, Duration lease, Duration ttl, int cap) {
        this.store = store;
        this.clock = clock;
        this.lease = lease;
        this.ttl = ttl;
        this.cap = cap;
    }

    /** @param fresh true to wait for counts taken after this call @return the counts */
    Mono<Snapshot> get(boolean fresh) {
        return Mono.defer(() -> {
            Snapshot s = last.get();
            Instant now = clock.instant();
            if (!fresh && s != null && Duration.between(s.countedAt(), now).compareTo(ttl) < 0) {
                return Mono.just(s);
            }
            Mono<Snapshot> count = refresh();
            if (!fresh && s != null) {
                count.subscribe(x -> {}, e -> {}); // refresh behind the page; the stale counts answer now
                return Mono.just(s);
            }
            return count;
        });
    }

    private Mono<Snapshot> refresh() {
        while (true) {
            Mono<Snapshot> running = inflight.get();
            if (running != null) {
                return running;
            }
            Mono<Snapshot> created = Mono.defer(() -> {
                        Instant now = clock.instant();
                        long start = System.nanoTime();
                        return store.countByRoute(now, now.minus(lease), cap)
                                .map(c -> new Snapshot(c, now, now, (System.nanoTime() - start) / 1_000_000));
                    })
                    .doOnNext(last::set)
                    .doFinally(sig -> inflight.set(null))
                    .cache();
            if (inflight.compareAndSet(null, created)) {
                return created;
            }
        }
    }
}
