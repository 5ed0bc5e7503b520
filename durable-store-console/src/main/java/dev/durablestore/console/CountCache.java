package dev.durablestore.console;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxRouteActivity;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RetentionBacklog;
import dev.durablestore.api.RetentionPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;

/**
 * The overview counts, each route's activity and, with a retention policy, the retention backlog,
 * read at most once per TTL however many pages ask (one read in flight at a time, shared), each
 * count capped per status by {@code countByRoute}, each activity read by {@code routeActivity} with
 * at most {@link #ACTIVITY_CAP} rows, and the backlog by {@code retentionBacklog}, which reads every
 * closed workflow (D9) and so is never read per page. Past the TTL
 * the last counts are answered at once while a new count runs, so only the very first page waits
 * for a count.
 */
final class CountCache {

    /**
     * The most rows each of {@code routeActivity}'s three reads takes (the count cap when smaller):
     * the newest 10,000 claims and settles and the oldest 10,000 due rows. A route none of whose
     * rows is among them shows no instant; at the full count cap (100,000 by default) the three
     * reads made the first overview of a million-row outbox about half as slow again.
     */
    static final int ACTIVITY_CAP = 10_000;

    /** Counts, each route's activity (O68), the retention backlog (D9; null when off), and when they were taken. */
    record Snapshot(
            OutboxCounts counts,
            Map<ClaimScope, OutboxRouteActivity> activity,
            RetentionBacklog retention,
            Instant countedAt,
            Instant dueBy,
            long tookMillis) {}

    private final ReactiveStore store;
    private final Clock clock;
    private final Duration lease;
    private final Duration ttl;
    private final int cap;
    private final RetentionPolicy retention;
    private final AtomicReference<Snapshot> last = new AtomicReference<>();
    private final AtomicReference<Mono<Snapshot>> inflight = new AtomicReference<>();

    /**
     * @param retention the policy whose backlog is read with the counts, or {@code null} for none
     *     (retention off)
     */
    CountCache(ReactiveStore store, Clock clock, Duration lease, Duration ttl, int cap, RetentionPolicy retention) {
        this.store = store;
        this.clock = clock;
        this.lease = lease;
        this.ttl = ttl;
        this.cap = cap;
        this.retention = retention;
    }

    /** @param fresh true to wait for counts taken after this call @return the counts */
    Mono<Snapshot> get(boolean fresh) {
        return Mono.defer(() -> {
            Snapshot s = last.get();
            Instant now = clock.instant();
            if (fresh) {
                // a count already running may have begun before this call: then count again
                return refresh().flatMap(r -> r.countedAt().isBefore(now) ? count().doOnNext(last::set) : Mono.just(r));
            }
            if (s != null && Duration.between(s.countedAt(), now).compareTo(ttl) < 0) {
                return Mono.just(s);
            }
            Mono<Snapshot> count = refresh();
            if (s != null) {
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
            Mono<Snapshot> created = count().doOnNext(last::set)
                    .doFinally(sig -> inflight.set(null))
                    .cache();
            if (inflight.compareAndSet(null, created)) {
                return created;
            }
        }
    }

    /** @return one count, activity and backlog read, taken when subscribed */
    private Mono<Snapshot> count() {
        return Mono.defer(() -> {
            Instant now = clock.instant();
            long start = System.nanoTime();
            Mono<Map<ClaimScope, OutboxRouteActivity>> activity =
                    store.routeActivity(now, Math.min(cap, ACTIVITY_CAP)).collectMap(OutboxRouteActivity::route);
            Mono<Optional<RetentionBacklog>> backlog = retention == null
                    ? Mono.just(Optional.empty())
                    : store.retentionBacklog(retention, now).map(Optional::of);
            return Mono.zip(store.countByRoute(now, now.minus(lease), cap), activity, backlog)
                    .map(t -> new Snapshot(
                            t.getT1(),
                            t.getT2(),
                            t.getT3().orElse(null),
                            now,
                            now,
                            (System.nanoTime() - start) / 1_000_000));
        });
    }
}
