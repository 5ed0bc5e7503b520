package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.core.internal.StepEncoder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The fenced single-row settles on PostgreSQL ({@code settle(row, settlement)} of every kind, and
 * {@code complete(row)}, W6), written in groups as
 * {@link GroupedSettles} writes the unfenced ones: concurrent settles of one store wait in one
 * {@link GroupCommit} and go out as one {@code UPDATE} per flush, which commits by itself (one
 * round trip). Each row changes only while it is {@code claimed} under its settle's claim token, as
 * {@link FencedSettles} does for one; the statement returns the keys it changed, and a settle whose
 * key is not among them failed its fence: it gets {@link StaleClaimException} and nothing of it was
 * written. Every other caller's {@code Mono} completes once the statement holding its change
 * committed.
 *
 * <p>The rows are found by {@code dispatch_key = ANY(keys)}, the primary key's index on exactly
 * those keys whatever the table's statistics say, and matched to their tokens by a join with the
 * settles' arrays. Two settles of one key in a group are written in rounds in submission order
 * ({@link GroupedSettles#rounds}), so the second sees what the first did (a second complete under
 * the same token finds the row {@code done} and is refused, as it would be alone). Keys are sorted
 * within a round, and a statement aborted as a deadlock victim (it changed nothing) is sent again,
 * up to three times.
 */
final class GroupedFencedSettles {

    /** The most requests in one group. */
    static final int MAX_GROUP = GroupedSettles.MAX_GROUP;
    /** The most groups being written at once, per store. */
    static final int MAX_FLUSHES = GroupedSettles.MAX_FLUSHES;

    private static final String PENDING = "pending";

    /**
     * Where a fenced row is found: by its key (the primary key, {@code ANY(keys)}), then its claim
     * and token. Its status is {@code claimed}, tested on {@code status || ''} for the reason
     * {@link GroupedSettles#live} gives: as {@code status = 'claimed'}, the planner walked
     * {@code outbox_workflow} for it when the statistics said the table was empty.
     */
    private static final String FENCE = "WHERE o.dispatch_key = ANY($1::text[]) AND o.dispatch_key = u.dispatch_key "
            + "AND o.claim_token = u.claim_token AND (o.status || '') = 'claimed' "
            + "RETURNING o.dispatch_key";

    /** Every settle of a round ends in the same terminal status (the usual group: completes). */
    static final String SETTLE_ALIKE = "UPDATE outbox o SET status = $3, claimed_at = NULL, settled_at = $4 "
            + "FROM unnest($1::text[], $2::bigint[]) AS u(dispatch_key, claim_token) " + FENCE;

    /**
     * Any mix; a retry ({@code pending}) keeps {@code settled_at} and sets its attempt and visible
     * time; a settle with a reason sets the row's failures to the array it carries, one without (a
     * NULL element) leaves them (O66).
     */
    static final String SETTLE = "UPDATE outbox o SET status = u.status, claimed_at = NULL, "
            + "attempt = CASE WHEN u.status = 'pending' THEN u.attempt ELSE o.attempt END, "
            + "visible_after = CASE WHEN u.status = 'pending' THEN u.visible_after ELSE o.visible_after END, "
            + "settled_at = CASE WHEN u.status = 'pending' THEN o.settled_at ELSE $6 END, "
            + "failures = COALESCE(u.failures, o.failures) "
            + "FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $7::text[]) "
            + "AS u(dispatch_key, claim_token, status, attempt, visible_after, failures) " + FENCE;

    /**
     * One fenced settle.
     *
     * @param settle the settle, its key and claim token
     * @param operation the caller's operation, for its {@link StaleClaimException}
     */
    record Fenced(StepEncoder.Settle settle, String operation) {}

    private final Db db;
    private final Runnable wake;
    private final LongSupplier now;
    private final GroupCommit<Fenced, Void> groups;

    /**
     * @param db database access
     * @param now the store clock in epoch nanoseconds, read once per statement
     * @param wake called after a statement that committed a retry
     */
    GroupedFencedSettles(Db db, LongSupplier now, Runnable wake) {
        this.db = db;
        this.now = now;
        this.wake = wake;
        this.groups = new GroupCommit<>(MAX_GROUP, MAX_FLUSHES, true, this::write);
    }

    /**
     * @param operation the caller's operation name (errors, metrics)
     * @param settle the change
     * @return completes once the statement holding it committed; {@link StaleClaimException} when
     *     the row is no longer claimed under the settle's token
     */
    Mono<Void> submit(String operation, StepEncoder.Settle settle) {
        return groups.submit(new Fenced(settle, operation), operation, db);
    }

    /** Code-point order of the keys, the order PostgreSQL's {@code "C"} index locks them in. */
    private static final Comparator<GroupCommit.Call<Fenced, Void>> BY_KEY = (a, b) -> Times.CODE_POINT_ORDER.compare(
            a.request().settle().dispatchKey(), b.request().settle().dispatchKey());

    private Mono<Void> write(List<GroupCommit.Call<Fenced, Void>> group) {
        List<List<GroupCommit.Call<Fenced, Void>>> rounds =
                GroupedSettles.rounds(group, call -> call.request().settle().dispatchKey());
        return Flux.fromIterable(rounds).concatMap(this::writeRound).then();
    }

    private Mono<Void> writeRound(List<GroupCommit.Call<Fenced, Void>> calls) {
        long nowNanos = now.getAsLong();
        List<GroupCommit.Call<Fenced, Void>> sorted = new ArrayList<>(calls);
        sorted.sort(BY_KEY);
        List<GroupCommit.Call<Fenced, Void>> round = new ArrayList<>(calls.size());
        List<Long> visible = new ArrayList<>(calls.size());
        for (GroupCommit.Call<Fenced, Void> call : sorted) {
            StepEncoder.Settle s = call.request().settle();
            try {
                visible.add(s.kind() == Settlement.Kind.RETRY ? s.retryVisibleAfter(nowNanos) : 0L);
                round.add(call);
            } catch (RuntimeException e) { // a retry's delay past the storable bound (O58): it alone fails
                call.fail(e);
            }
        }
        if (round.isEmpty()) {
            return Mono.empty();
        }
        int n = round.size();
        String[] keys = new String[n];
        Long[] tokens = new Long[n];
        String[] statuses = new String[n];
        Long[] attempts = new Long[n];
        Long[] visibleAfter = visible.toArray(new Long[0]);
        String[] failures = new String[n];
        boolean retries = false;
        boolean reasons = false;
        boolean alike = true;
        for (int i = 0; i < n; i++) {
            StepEncoder.Settle s = round.get(i).request().settle();
            keys[i] = s.dispatchKey();
            tokens[i] = s.claimToken();
            statuses[i] = s.kind() == Settlement.Kind.RETRY
                    ? PENDING
                    : s.kind().status().token();
            attempts[i] = (long) s.nextAttempt();
            failures[i] = s.failuresAfter(nowNanos);
            retries |= PENDING.equals(statuses[i]);
            reasons |= failures[i] != null;
            alike &= statuses[i].equals(statuses[0]);
        }
        boolean wakes = retries;
        boolean oneStatus = alike && !retries && !reasons;
        String operation = n == 1 ? "settle" : "settle[" + n + "]";
        return GroupedSettles.sendRound(
                db,
                operation,
                round,
                c -> (oneStatus
                                ? Sql.query(
                                        c, SETTLE_ALIKE, row -> Sql.textAt(row, 0), keys, tokens, statuses[0], nowNanos)
                                : Sql.query(
                                        c,
                                        SETTLE,
                                        row -> Sql.textAt(row, 0),
                                        keys,
                                        tokens,
                                        statuses,
                                        attempts,
                                        visibleAfter,
                                        nowNanos,
                                        failures))
                        .collect(HashSet<String>::new, Set::add),
                wakes ? wake : null,
                (call, changed) -> {
                    Fenced f = call.request();
                    if (changed.contains(f.settle().dispatchKey())) {
                        call.succeed(null);
                    } else { // its fence failed: nothing of it was written
                        call.fail(new StaleClaimException(
                                f.operation(),
                                f.settle().dispatchKey(),
                                f.settle().claimToken()));
                    }
                });
    }
}
