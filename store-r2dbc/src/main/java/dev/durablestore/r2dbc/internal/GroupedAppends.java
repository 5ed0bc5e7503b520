package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.Settlement;
import dev.durablestore.core.internal.EventEncoder;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.StepEncoder;
import io.r2dbc.spi.Connection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Group commit of appends on PostgreSQL (E3–E22): concurrent appends, with their outbox rows, and
 * workflow steps go into one guarded multi-row statement per round ({@link GroupedAppendStatement}),
 * which commits by itself (one round trip). This class schedules them: which appends share a
 * group, how a group is cut into rounds, which groups wait for which, and what each caller gets
 * back.
 *
 * <p>A group is split into rounds so that it means what running its appends in submission order
 * would: a round never holds two appends of one workflow, nor two appends staging one dispatch key
 * (a later one waits for the next round, after the earlier committed). When a round's statement
 * fails (a writer on another node took one of its sequences first: a unique violation), the round
 * is written again one append per statement, so a conflict stays the conflicting append's alone.
 */
final class GroupedAppends {

    /**
     * The most appends in one group: half of P1's 64 in flight, so that while one group's statement
     * runs on the server the store completes the other group's callers and encodes their next
     * appends (on this 2-core machine the two take turns otherwise: the event loop and the backend
     * each busy half the time).
     */
    static final int MAX_GROUP = 32;
    /**
     * Groups being written at once, per store. Each group is taken once the event-loop task that
     * made its first request has returned ({@link EventLoops}), so a burst of completions and the
     * appends they trigger go as one group, not as a group of one and a group of the rest. Measured
     * with 20,000 appends at 64 in flight on the embedded server (2 cores, after warm-up): one group
     * of up to 128 at a time carried 63.7 appends per statement, 28–32k appends/s, JVM 12–14 ms and
     * server 17–19.5 ms per 1,000 appends; two groups of up to 32 carried 31.8, 40–48k appends/s, JVM
     * 12.5–17.5 ms and server 20–22 ms. (Before the hop, two groups carried 23–27 appends and were
     * slower than one.)
     */
    static final int MAX_FLUSHES = 2;
    /** The most array elements (appends, events, rows) of one statement; more wait for the next round. */
    static final int MAX_ELEMENTS = 50_000;
    /** The most payload bytes of one statement; more wait for the next round. */
    static final long MAX_BYTES = 8L << 20;

    /** Marks a dispatch key among the workflow ids of {@link #rounds} (a workflow id is a UUID). */
    private static final String KEY = "key:";

    /**
     * One append, validated and encoded.
     *
     * @param name the operation name ({@code append} or {@code appendWithOutbox})
     * @param workflowId the workflow's canonical text
     * @param expectedSeq the guard
     * @param events the encoded events, contiguous from {@code expectedSeq + 1}
     * @param rows the encoded outbox rows, each dispatch key once
     * @param settles a step's fenced settles, in key order (none for an append)
     * @param timers a step's timer changes (none for an append)
     */
    record Append(
            String name,
            String workflowId,
            long expectedSeq,
            List<EventEncoder.Encoded> events,
            List<OutboxRowEncoder.Encoded> rows,
            List<StepEncoder.Settle> settles,
            List<StepEncoder.Timer> timers) {

        /** An append or appendWithOutbox: no settles, no timers. */
        Append(
                String name,
                String workflowId,
                long expectedSeq,
                List<EventEncoder.Encoded> events,
                List<OutboxRowEncoder.Encoded> rows) {
            this(name, workflowId, expectedSeq, events, rows, List.of(), List.of());
        }

        /** @return true for a workflow step (settles or timers) */
        boolean isStep() {
            return !settles.isEmpty() || !timers.isEmpty();
        }

        /** @return true when its commit may make rows claimable */
        private boolean wakes() {
            if (!rows.isEmpty()) {
                return true;
            }
            for (StepEncoder.Settle s : settles) {
                if (s.kind() == Settlement.Kind.RETRY) {
                    return true;
                }
            }
            return false;
        }

        private int elements() {
            return 1 + events.size() + rows.size() + settles.size() + timers.size();
        }

        private long bytes() {
            long n = 0;
            for (EventEncoder.Encoded e : events) {
                n += e.json().length;
            }
            for (OutboxRowEncoder.Encoded r : rows) {
                n += r.input().length;
            }
            return n;
        }
    }

    /** Writes one append alone and maps its failure (a unique violation becomes a conflict, E15). */
    interface Single {
        /**
         * @param append the append
         * @param write its statement
         * @return the statement's outcome, failures mapped
         */
        Mono<Void> write(Append append, Mono<Void> write);
    }

    private final Db db;
    private final Clock clock;
    private final Single single;
    private final Runnable wake;
    /** The groups being written, in the order they were taken. */
    private final List<Writing> writing = new ArrayList<>(MAX_FLUSHES);

    private final GroupCommit<Append, Void> group = new GroupCommit<>(MAX_GROUP, MAX_FLUSHES, true, this::flush);

    /**
     * @param db database access
     * @param clock the store clock (settle time of rows staged in a terminal status)
     * @param single maps the failure of an append written alone
     * @param wake wakes the claim streams; called once after each statement that staged rows
     */
    GroupedAppends(Db db, Clock clock, Single single, Runnable wake) {
        this.db = db;
        this.clock = clock;
        this.single = single;
        this.wake = wake;
    }

    /**
     * @param append a validated append
     * @return completes when its events and rows committed; a {@link SequenceConflictException}
     *     when the head was not its expected sequence
     */
    Mono<Void> submit(Append append) {
        // admitted per caller (close waits for it, the operation timeout bounds it), as settles are
        return db.guarded(append.name(), group.submit(append));
    }

    /**
     * Writes a group once every group taken before it that shares a workflow or a dispatch key with
     * it has finished (groups are written {@link #MAX_FLUSHES} at a time), so appends keep
     * submission order across groups as {@link #rounds} keeps it within one: an append made right
     * after another of the same workflow, without waiting for it, sees it committed.
     */
    private Mono<Void> flush(List<GroupCommit.Call<Append, Void>> calls) {
        List<List<GroupCommit.Call<Append, Void>>> rounds = rounds(calls, GroupCommit.Call::request);
        Set<String> keys = new HashSet<>();
        for (GroupCommit.Call<Append, Void> call : calls) {
            keys.add(call.request().workflowId());
            for (OutboxRowEncoder.Encoded r : call.request().rows()) {
                keys.add(KEY + r.row().dispatchKey());
            }
        }
        Writing mine = new Writing(keys, Sinks.empty());
        List<Mono<Void>> before = new ArrayList<>(1);
        synchronized (writing) { // called in the order the groups were taken (GroupCommit.Flush)
            for (Writing w : writing) {
                if (!Collections.disjoint(w.keys(), keys)) {
                    before.add(w.done().asMono());
                }
            }
            writing.add(mine);
        }
        Mono<Void> write = Flux.fromIterable(rounds).concatMap(this::writeRound).then();
        return (before.isEmpty() ? write : Mono.when(before).then(write)).doFinally(signal -> {
            synchronized (writing) {
                writing.remove(mine);
            }
            mine.done().tryEmitEmpty();
        });
    }

    /** A group being written: its workflows and dispatch keys, and the signal that it has finished. */
    private record Writing(Set<String> keys, Sinks.Empty<Void> done) {}

    /**
     * Splits a group into rounds that hold each workflow and each dispatch key at most once, and at
     * most {@link #MAX_ELEMENTS} values and {@link #MAX_BYTES} payload bytes (an append larger than
     * that goes alone). An append that must wait blocks its workflow and keys for the rest of the
     * pass, so a workflow's appends stay in submission order.
     *
     * @param calls the group, in submission order
     * @param appendOf the append of a call
     * @param <C> a call
     * @return the rounds, to write one after the other
     */
    static <C> List<List<C>> rounds(List<C> calls, Function<C, Append> appendOf) {
        List<List<C>> rounds = new ArrayList<>();
        List<C> rest = calls;
        while (!rest.isEmpty()) {
            List<C> round = new ArrayList<>(rest.size());
            List<C> later = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            int elements = 0;
            long bytes = 0;
            for (C call : rest) {
                Append a = appendOf.apply(call);
                boolean free = !seen.contains(a.workflowId());
                for (OutboxRowEncoder.Encoded r : a.rows()) {
                    free &= !seen.contains(KEY + r.row().dispatchKey());
                }
                boolean fits = elements + a.elements() <= MAX_ELEMENTS && bytes + a.bytes() <= MAX_BYTES;
                if (free && (round.isEmpty() || fits)) {
                    round.add(call);
                    elements += a.elements();
                    bytes += a.bytes();
                } else {
                    later.add(call);
                }
                seen.add(a.workflowId());
                for (OutboxRowEncoder.Encoded r : a.rows()) {
                    seen.add(KEY + r.row().dispatchKey());
                }
            }
            rounds.add(round);
            rest = later;
        }
        return rounds;
    }

    private Mono<Void> writeRound(List<GroupCommit.Call<Append, Void>> round) {
        List<Append> appends = new ArrayList<>(round.size());
        for (GroupCommit.Call<Append, Void> call : round) {
            appends.add(call.request());
        }
        if (round.size() == 1) {
            return writeAlone(round.get(0));
        }
        return db.unguardedAutocommit("append", round.size(), c -> heads(c, appends))
                .doOnNext(heads -> {
                    if (settle(round, heads)) {
                        wake.run();
                    }
                })
                .then()
                .onErrorResume(e -> {
                    if (Failures.isUniqueViolation(e)
                            || Failures.isDeadlock(e)
                            || e instanceof InvalidArgumentException) {
                        // another writer took a sequence first, or PostgreSQL aborted the statement
                        // as a deadlock victim (it changed nothing), or a step's retry delay ran past
                        // the storable range as the arguments were built (nothing was sent, O58): one
                        // by one, so a conflict or a refusal is that append's alone (E15)
                        return Flux.fromIterable(round)
                                .concatMap(this::writeAlone)
                                .then();
                    }
                    // the statement may have committed (a timeout): never write it twice
                    for (GroupCommit.Call<Append, Void> call : round) {
                        call.fail(inGroup(call.request(), round.size(), e));
                    }
                    return Mono.empty();
                });
    }

    private Mono<Void> writeAlone(GroupCommit.Call<Append, Void> call) {
        Append a = call.request();
        Mono<Void> write = db.unguardedAutocommit(a.name(), 1, c -> heads(c, List.of(a)))
                .flatMap(outcomes -> {
                    Throwable refused = outcomes.get(0).refusal(a);
                    return refused == null ? Mono.<Void>empty() : Mono.<Void>error(refused);
                });
        return single.write(a, write)
                .doOnSuccess(v -> {
                    if (a.wakes()) {
                        wake.run();
                    }
                    call.succeed(null);
                })
                .onErrorResume(e -> {
                    call.fail(e);
                    return Mono.empty();
                });
    }

    private static Throwable inGroup(Append a, int size, Throwable e) {
        if (e.getClass() == BackendException.class) { // not a subclass: StoreClosedException stays as it is
            return new BackendException(a.name() + " failed in a group of " + size + " appends: " + e.getMessage(), e);
        }
        return e;
    }

    /** @return true when an append that staged rows (or a step that retried one) committed */
    private static boolean settle(
            List<GroupCommit.Call<Append, Void>> round, Map<Integer, GroupedAppendStatement.Outcome> outcomes) {
        boolean staged = false;
        for (int i = 0; i < round.size(); i++) {
            GroupCommit.Call<Append, Void> call = round.get(i);
            GroupedAppendStatement.Outcome outcome = outcomes.get(i);
            if (outcome == null) {
                call.fail(new IllegalStateException("the grouped append returned no head for append " + i));
                continue;
            }
            Throwable refused = outcome.refusal(call.request());
            if (refused == null) {
                staged |= call.request().wakes();
                call.succeed(null);
            } else {
                call.fail(refused);
            }
        }
        return staged;
    }

    /** Runs the statement of a round (or of one append written alone) at the store clock's now. */
    private Mono<Map<Integer, GroupedAppendStatement.Outcome>> heads(Connection c, List<Append> appends) {
        return GroupedAppendStatement.run(c, appends, Times.nowNanos(clock.instant()));
    }
}
