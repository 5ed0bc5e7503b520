package dev.durablestore.r2dbc.internal;

import io.r2dbc.spi.Connection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The unfenced single-row settles on PostgreSQL ({@code settleKeys} of one key: complete, fail,
 * cancel, retry at an instant; O29–O34), written in groups: concurrent settles of one store wait in one
 * {@link GroupCommit} and go out as one {@code UPDATE … FROM unnest(…)} per flush (one
 * {@code UPDATE … WHERE dispatch_key = ANY(…)} when every settle of it ends in the same terminal
 * status, as a drain's completes do), which commits by itself (no {@code BEGIN}/{@code COMMIT}: one
 * round trip). Each caller's {@code Mono} completes once the statement holding its change committed.
 *
 * <p>Two requests for the same key in one group are written in rounds, one statement per round, in
 * submission order: the first occurrence of every key goes in the first round, the second in the
 * second, and so on, so they behave exactly as if run one after the other (an {@code UPDATE … FROM}
 * joining one row twice would apply only one of them, unpredictably). Keys are sorted within a
 * round, and a statement that PostgreSQL aborts as a deadlock victim (two writers locking rows in
 * different orders; an aborted statement changed nothing) is sent again, up to three times.
 *
 * <p>A group holds at most {@value #MAX_GROUP} requests and {@value #MAX_FLUSHES} flush is in flight
 * per store. Measured with the PG drain of the benchmark (issue 17, {@code --quick --runs 3}, 2
 * cores shared with the server), 2 or 4 flushes in flight were no better than 1 (P2 drain medians
 * 2,691 / 1,677 / 2,173 rows/s for 1 / 2 / 4, within the run-to-run spread), and with one the
 * settles of one store never lock rows against each other.
 */
final class GroupedSettles {

    /** The most requests in one group. */
    static final int MAX_GROUP = 256;
    /** The most groups being written at once, per store. */
    static final int MAX_FLUSHES = 1;

    private static final String PENDING = "pending";

    /**
     * A live row ({@code pending} or {@code claimed}), tested on {@code status || ''} so that no
     * index can serve it: the rows of a settle are then found only through the primary key, by
     * {@code dispatch_key = ANY(keys)}, whatever the table's statistics say. Written on the bare
     * column, {@code status IN ('pending', 'claimed')}, a settle of 64 keys on an outbox analysed
     * while empty and refilled walked every row of {@code outbox_workflow} (PostgresSettlePlanTest).
     * Written as "none of the settled statuses" it also matched a row whose stored token is none of
     * the five (O3: corrupt), which a settle then overwrote where the SQLite store leaves it.
     *
     * @param status the status column, qualified when needed
     * @return the predicate
     */
    static String live(String status) {
        return "(" + status + " || '') IN ('pending', 'claimed')";
    }

    /** One statement settles every row of a round; a retry ({@code pending}) keeps {@code settled_at}. */
    static final String SETTLE = "UPDATE outbox o SET status = u.status, claimed_at = NULL, "
            + "attempt = CASE WHEN u.status = 'pending' THEN u.attempt ELSE o.attempt END, "
            + "visible_after = CASE WHEN u.status = 'pending' THEN u.visible_after ELSE o.visible_after END, "
            + "settled_at = CASE WHEN u.status = 'pending' THEN o.settled_at ELSE $5 END "
            + "FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) "
            + "AS u(dispatch_key, status, attempt, visible_after) "
            + "WHERE o.dispatch_key = ANY($1::text[]) AND o.dispatch_key = u.dispatch_key AND " + live("o.status");

    /**
     * A round whose settles all end in the same terminal status (every complete of a drain): the
     * keys as one array, no per-row status, attempt or visible time to encode, send, unnest and
     * join. It changes exactly what {@link #SETTLE} changes for such a round (its keys are distinct),
     * and a deadlock is sent again as for it.
     */
    static final String SETTLE_ALIKE = "UPDATE outbox SET status = $1, claimed_at = NULL, settled_at = $2 "
            + "WHERE dispatch_key = ANY($3::text[]) AND " + live("status");

    /**
     * One settle.
     *
     * @param key the dispatch key
     * @param status the new status token: {@code done}, {@code failed}, {@code cancelled}, or
     *     {@code pending} for a retry
     * @param attempt the retry's attempt (ignored otherwise)
     * @param visibleAfter the retry's visible time in epoch nanoseconds (ignored otherwise)
     */
    record Settle(String key, String status, long attempt, long visibleAfter) {
        /** @return true for a retry, which makes its row claimable */
        boolean retry() {
            return PENDING.equals(status);
        }
    }

    private final Db db;
    private final Runnable wake;
    private final LongSupplier now;
    private final GroupCommit<Settle, Void> groups;

    /**
     * @param db database access
     * @param now the store clock in epoch nanoseconds, read once per statement for {@code settled_at}
     * @param wake called after a statement that committed a retry
     */
    GroupedSettles(Db db, LongSupplier now, Runnable wake) {
        this.db = db;
        this.now = now;
        this.wake = wake;
        this.groups = new GroupCommit<>(MAX_GROUP, MAX_FLUSHES, true, this::write);
    }

    /**
     * @param operation the caller's operation name (errors, metrics)
     * @param settle the change
     * @return completes once the statement holding it committed
     */
    Mono<Void> submit(String operation, Settle settle) {
        return groups.submit(settle, operation, db); // admitted and bounded as Db.guarded does
    }

    private Mono<Void> write(List<GroupCommit.Call<Settle, Void>> group) {
        // the usual group (a drain's completes) has no key twice: one round, found by sorting it,
        // which its statement needs anyway, instead of counting every key in a map
        List<GroupCommit.Call<Settle, Void>> sorted = new ArrayList<>(group);
        sorted.sort(BY_KEY);
        boolean distinct = true;
        for (int i = 1; i < sorted.size() && distinct; i++) {
            distinct = !sorted.get(i)
                    .request()
                    .key()
                    .equals(sorted.get(i - 1).request().key());
        }
        if (distinct) {
            return writeRound(sorted);
        }
        return Flux.fromIterable(rounds(group, call -> call.request().key()))
                .concatMap(this::writeRound)
                .then();
    }

    /** Code-point order of the keys, the order PostgreSQL's {@code "C"} index locks them in. */
    private static final Comparator<GroupCommit.Call<Settle, Void>> BY_KEY = (a, b) ->
            Times.CODE_POINT_ORDER.compare(a.request().key(), b.request().key());

    /**
     * @param group the calls in submission order
     * @param key the row a call changes
     * @return the group split so that no key appears twice in a round; rounds in submission order
     */
    static <C> List<List<C>> rounds(List<C> group, Function<C, String> key) {
        List<List<C>> rounds = new ArrayList<>(1);
        Map<String, Integer> seen = new HashMap<>();
        for (C call : group) {
            int round = seen.merge(key.apply(call), 1, Integer::sum) - 1;
            if (round == rounds.size()) {
                rounds.add(new ArrayList<>(round == 0 ? group.size() : 4));
            }
            rounds.get(round).add(call);
        }
        return rounds;
    }

    private Mono<Void> writeRound(List<GroupCommit.Call<Settle, Void>> round) {
        round.sort(BY_KEY); // (linear when sorted already)
        int n = round.size();
        String[] keys = new String[n];
        String[] statuses = new String[n];
        Long[] attempts = new Long[n];
        Long[] visible = new Long[n];
        boolean retries = false;
        boolean alike = true;
        for (int i = 0; i < n; i++) {
            Settle s = round.get(i).request();
            keys[i] = s.key();
            statuses[i] = s.status();
            attempts[i] = s.attempt();
            visible[i] = s.visibleAfter();
            retries |= s.retry();
            alike &= s.status().equals(statuses[0]);
        }
        boolean wakes = retries;
        boolean oneStatus = alike && !retries;
        String operation = n == 1 ? "settle" : "settle[" + n + "]";
        return sendRound(
                db,
                operation,
                round,
                c -> oneStatus
                        ? Sql.update(c, SETTLE_ALIKE, statuses[0], now.getAsLong(), keys)
                        : Sql.update(c, SETTLE, keys, statuses, attempts, visible, now.getAsLong()),
                wakes ? wake : null,
                (call, changed) -> call.succeed(null));
    }

    /**
     * Sends the statement of one round of a settle group, which commits by itself: again when
     * PostgreSQL aborted it as a deadlock victim (an aborted statement changed nothing), up to
     * three times. Once it committed, {@code wake} runs (when given: the round made rows
     * claimable) and {@code settle} completes each caller from what the statement returned; a
     * failed round fails its own callers (the group's later rounds are still sent).
     *
     * @param db database access
     * @param operation the round's operation name
     * @param round the calls the statement carries
     * @param statement sends the statement
     * @param wake wakes the claim streams after the commit, or {@code null}
     * @param settle completes one caller from the statement's result
     * @param <R> a request
     * @param <X> what the statement returns
     * @return completes once every caller of the round has its signal
     */
    static <R, X> Mono<Void> sendRound(
            Db db,
            String operation,
            List<GroupCommit.Call<R, Void>> round,
            Function<Connection, Mono<X>> statement,
            Runnable wake,
            BiConsumer<GroupCommit.Call<R, Void>, X> settle) {
        return db.unguardedAutocommit(operation, round.size(), statement)
                .retryWhen(Retry.max(3)
                        .filter(Failures::isDeadlock)
                        .onRetryExhaustedThrow((spec, signal) -> signal.failure()))
                .doOnSuccess(result -> {
                    if (wake != null) {
                        wake.run();
                    }
                    for (GroupCommit.Call<R, Void> call : round) {
                        settle.accept(call, result);
                    }
                })
                .onErrorResume(e -> {
                    for (GroupCommit.Call<R, Void> call : round) {
                        call.fail(e);
                    }
                    return Mono.empty();
                })
                .then();
    }
}
