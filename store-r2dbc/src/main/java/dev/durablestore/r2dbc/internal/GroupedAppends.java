package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowStep;
import dev.durablestore.core.internal.EventEncoder;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.StepEncoder;
import io.r2dbc.spi.Connection;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Group commit of appends on PostgreSQL (E3–E22): concurrent appends, with their outbox rows, go
 * into one guarded multi-row statement per flush, which commits by itself (one round trip). Each
 * append's events and rows are inserted only when the workflow's committed head equals its
 * expected sequence; the others come back as sequence conflicts naming the head, exactly as when
 * written one by one.
 *
 * <p>The statement has one fixed text for every group, so the server prepares it once per
 * connection: the values travel as arrays ({@code unnest}), and the payload bytes of all events
 * (and of all rows) as one {@code bytea} each, cut by offset and length.
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

    /** The events of the appends that passed their checks ({@code ok}): shared by every statement. */
    private static final String EVENTS = "ev AS (SELECT * FROM unnest($4::int[], $5::bigint[], $6::int[], $7::int[], "
            + "$8::bigint[], $9::text[], $10::int[], $11::text[], $12::text[]) AS ev(i, seq, off, len, recorded_at, "
            + "kind, queryable, workflow_type, child)), "
            + "ins AS (INSERT INTO events (workflow_id, seq, event, recorded_at, kind, queryable, workflow_type, "
            + "child_workflow_id) SELECT ok.w, ev.seq, %s, ev.recorded_at, "
            + "ev.kind, ev.queryable, ev.workflow_type, ev.child FROM ev JOIN ok ON ok.i = ev.i)";

    /** The outbox rows of the appends that passed their checks ({@code ok}), after {@link #EVENTS}. */
    private static final String ROWS = ", ob AS (SELECT * FROM unnest($14::int[], $15::text[], $16::text[], "
            + "$17::bigint[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::int[], $24::int[], "
            + "$25::text[], $26::bigint[], $27::bigint[], $28::bigint[], $29::bigint[], $31::text[], $32::int[]) "
            + "AS ob(i, dispatch_key, workflow_id, ordinal, run_id, namespace, task_queue, node, activity_type, off, "
            + "len, status, attempt, visible_after, claimed_at, settled_at, trace_context, priority)), "
            + "obi AS (INSERT INTO outbox (dispatch_key, workflow_id, ordinal, run_id, namespace, task_queue, node, "
            + "activity_type, input, status, attempt, visible_after, claimed_at, settled_at, trace_context, priority) "
            + "SELECT ob.dispatch_key, ob.workflow_id, ob.ordinal, ob.run_id, ob.namespace, ob.task_queue, ob.node, "
            + "ob.activity_type, %s, ob.status, ob.attempt, "
            + "ob.visible_after, ob.claimed_at, ob.settled_at, ob.trace_context, ob.priority FROM ob JOIN ok ON ok.i = ob.i "
            + "ON CONFLICT DO NOTHING)";

    /** The appends of a group and their committed heads. */
    private static final String HEADS =
            "a AS (SELECT * FROM unnest($1::int[], $2::text[], $3::bigint[]) " + "AS a(i, w, expected)), ";

    private static final String HEAD = "COALESCE((SELECT max(e.seq) FROM events e WHERE e.workflow_id = a.w), 0)";

    /**
     * The guarded append of a group. It returns a row only for an append whose head was not its
     * expected sequence (nothing for a group that committed whole): an append without a row
     * committed.
     */
    private static final String APPEND = "WITH " + HEADS
            + "h AS (SELECT a.i, a.w, a.expected, " + HEAD + " AS head FROM a), "
            + "ok AS (SELECT i, w FROM h WHERE head = expected), "
            + "%s SELECT i, head, true, NULL::text[] FROM h WHERE head <> expected";

    /**
     * {@link #APPEND} with the settles and timers of workflow steps (W1–W12): the settled rows are
     * locked first, and a step writes only when its head is its expected sequence and every row it
     * settles is still claimed under the step's claim token (W6, W7); it then settles those rows
     * and schedules or deletes its timers in the same statement. A step that fails either check
     * writes nothing. Each step comes back with its head and the keys whose claims were current.
     */
    private static final String STEP = "WITH " + HEADS
            + "st AS (SELECT * FROM unnest($33::int[], $34::text[], $35::bigint[], $36::text[], $37::int[], "
            + "$38::bigint[]) AS st(i, dispatch_key, token, status, attempt, visible_after)), "
            + "locked AS MATERIALIZED (SELECT st.i, o.dispatch_key FROM outbox o JOIN st ON o.dispatch_key = "
            + "st.dispatch_key AND o.claim_token = st.token WHERE o.status = 'claimed' ORDER BY o.dispatch_key "
            + "FOR UPDATE OF o), "
            + "h AS (SELECT a.i, a.w, a.expected, " + HEAD + " AS head, "
            + "(SELECT count(*) FROM st WHERE st.i = a.i) = (SELECT count(*) FROM locked l WHERE l.i = a.i) AS fenced, "
            + "(SELECT array_agg(l.dispatch_key) FROM locked l WHERE l.i = a.i) AS current FROM a), "
            + "ok AS (SELECT i, w FROM h WHERE head = expected AND fenced), "
            + "%s, "
            + "upd AS (UPDATE outbox o SET status = st.status, claimed_at = NULL, "
            + "attempt = CASE WHEN st.status = 'pending' THEN st.attempt ELSE o.attempt END, "
            + "visible_after = CASE WHEN st.status = 'pending' THEN st.visible_after ELSE o.visible_after END, "
            + "settled_at = CASE WHEN st.status = 'pending' THEN o.settled_at ELSE $39::bigint END "
            + "FROM st JOIN ok ON ok.i = st.i WHERE o.dispatch_key = st.dispatch_key AND o.claim_token = st.token "
            + "AND o.status = 'claimed' RETURNING 1), "
            + "tm AS (SELECT * FROM unnest($40::int[], $41::text[], $42::bigint[]) AS tm(i, timer_id, fire_at)), "
            + "tup AS (INSERT INTO timers (workflow_id, timer_id, fire_at) SELECT ok.w, tm.timer_id, tm.fire_at "
            + "FROM tm JOIN ok ON ok.i = tm.i WHERE tm.fire_at IS NOT NULL "
            + "ON CONFLICT (workflow_id, timer_id) DO UPDATE SET fire_at = excluded.fire_at RETURNING 1), "
            + "tdel AS (DELETE FROM timers t USING tm JOIN ok ON ok.i = tm.i WHERE tm.fire_at IS NULL "
            + "AND t.workflow_id = ok.w AND t.timer_id = tm.timer_id RETURNING 1) "
            + "SELECT i, head, fenced, current FROM h";

    /**
     * The statements, by shape: index {@link #shape}. Plain appends (no outbox rows in the round)
     * leave the rows' columns out, so the statement the driver parses and the server runs is the
     * size of what it writes. Payload bytes that are all 7-bit ASCII without NUL (the store's JSON
     * codec writes nothing else, escaping the rest) travel as {@code text} and are turned back into
     * the same bytes by {@code convert_to}; anything else travels as {@code bytea}, which the driver
     * sends as hex digits (two characters per byte, written one by one: a sixth of the JVM's time in
     * a group of 64 plain appends).
     */
    private static final String[] STATEMENTS = statements();

    /** The highest parameter of a statement of each kind: plain appends, appends with rows, steps. */
    private static final int[] PARAMETERS = {13, 32, 42};

    private static String[] statements() {
        String[] all = new String[6];
        for (int kind = 0; kind < 3; kind++) {
            for (int text = 0; text < 2; text++) {
                String events = String.format(Locale.ROOT, EVENTS, payload(13, "ev", text == 1));
                String rows = String.format(Locale.ROOT, ROWS, payload(30, "ob", text == 1));
                String inserts = kind == 0 ? events : events + rows;
                all[kind * 2 + text] = String.format(Locale.ROOT, kind == 2 ? STEP : APPEND, inserts);
            }
        }
        return all;
    }

    /**
     * @return the expression that cuts one value's payload out of parameter {@code $n}; text is
     *     turned into bytes once per statement (an init plan), as a cut of text would scan it from
     *     its start for every value in a multi-byte server encoding
     */
    private static String payload(int n, String alias, boolean text) {
        String bytes = text ? "(SELECT convert_to($" + n + "::text, 'UTF8'))" : "$" + n + "::bytea";
        return "substring(" + bytes + " FROM " + alias + ".off FOR " + alias + ".len)";
    }

    /** @return the index in {@link #STATEMENTS} of a statement of {@code kind} (0, 1, 2 as {@link #PARAMETERS}) */
    private static int shape(int kind, boolean text) {
        return kind * 2 + (text ? 1 : 0);
    }

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

        /** @return true for a workflow step (settles or timers), written by {@link #STEP} */
        private boolean isStep() {
            return !settles.isEmpty() || !timers.isEmpty();
        }

        /** @return true when its commit may make rows claimable */
        private boolean wakes() {
            if (!rows.isEmpty()) {
                return true;
            }
            for (StepEncoder.Settle s : settles) {
                if (s.settlement() == WorkflowStep.Settlement.RETRY) {
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
                    Throwable refused = refusal(a, outcomes.get(0));
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
    private static boolean settle(List<GroupCommit.Call<Append, Void>> round, Map<Integer, Outcome> outcomes) {
        boolean staged = false;
        for (int i = 0; i < round.size(); i++) {
            GroupCommit.Call<Append, Void> call = round.get(i);
            Outcome outcome = outcomes.get(i);
            if (outcome == null) {
                call.fail(new IllegalStateException("the grouped append returned no head for append " + i));
                continue;
            }
            Throwable refused = refusal(call.request(), outcome);
            if (refused == null) {
                staged |= call.request().wakes();
                call.succeed(null);
            } else {
                call.fail(refused);
            }
        }
        return staged;
    }

    /**
     * @return null when the append (or step) committed; else why it wrote nothing: the guard first
     *     (E3, E4), then the first settle whose claim was not current (W7)
     */
    private static Throwable refusal(Append a, Outcome outcome) {
        if (outcome.head() != a.expectedSeq()) {
            return new SequenceConflictException(a.expectedSeq(), outcome.head());
        }
        if (!outcome.fenced()) {
            for (StepEncoder.Settle s : a.settles()) {
                if (!outcome.current().contains(s.dispatchKey())) {
                    return new StaleClaimException(a.name(), s.dispatchKey(), s.claimToken());
                }
            }
            return new IllegalStateException("the grouped step reported a stale claim it does not settle");
        }
        return null;
    }

    /** What the statement says of one append: the head before it, and for a step its current claims. */
    private record Outcome(long head, boolean fenced, Set<String> current) {}

    /**
     * Runs the statement for {@code appends}; returns each append's outcome, by index. A plain
     * append's statement names only the refused appends: the others get their expected sequence
     * as their head (they committed).
     */
    private Mono<Map<Integer, Outcome>> heads(Connection c, List<Append> appends) {
        long now = Times.nowNanos(clock.instant());
        boolean steps = false;
        boolean rows = false;
        for (Append a : appends) {
            steps |= a.isStep();
            rows |= !a.rows().isEmpty();
        }
        Object[] args = steps ? Columns.ofSteps(appends, now) : Columns.of(appends, now);
        boolean text = ascii((byte[]) args[12]) && ascii((byte[]) args[29]);
        if (text) {
            args[12] = latin1((byte[]) args[12]);
            args[29] = latin1((byte[]) args[29]);
        }
        int kind = steps ? 2 : rows ? 1 : 0;
        if (args.length > PARAMETERS[kind]) {
            args = Arrays.copyOf(args, PARAMETERS[kind]);
        }
        Mono<Map<Integer, Outcome>> outcomes = Sql.query(
                        c,
                        STATEMENTS[shape(kind, text)],
                        row -> {
                            Object current = row.get(3);
                            Set<String> keys = current instanceof String[] texts ? Set.of(texts) : Set.of();
                            return Map.entry(
                                    Sql.longAt(row, 0).intValue(),
                                    new Outcome(
                                            Sql.longAt(row, 1), Boolean.TRUE.equals(row.get(2, Boolean.class)), keys));
                        },
                        args)
                .collectMap(Map.Entry::getKey, Map.Entry::getValue);
        if (steps) {
            return outcomes;
        }
        return outcomes.map(refused -> {
            Map<Integer, Outcome> all = new HashMap<>(refused);
            for (int i = 0; i < appends.size(); i++) {
                all.putIfAbsent(i, new Outcome(appends.get(i).expectedSeq(), true, Set.of()));
            }
            return all;
        });
    }

    /** @return true when every byte is 7-bit ASCII other than NUL: text that means exactly these bytes */
    static boolean ascii(byte[] bytes) {
        for (byte b : bytes) {
            if (b <= 0) {
                return false;
            }
        }
        return true;
    }

    /** @return the ASCII bytes as text, one character each */
    private static String latin1(byte[] ascii) {
        return new String(ascii, StandardCharsets.ISO_8859_1);
    }

    /** The statement's 32 arguments: the appends, their events and their rows as columns of arrays. */
    private static final class Columns {
        private Columns() {}

        static Object[] of(List<Append> appends, long nowNanos) {
            int n = appends.size();
            Integer[] index = new Integer[n];
            String[] workflow = new String[n];
            Long[] expected = new Long[n];
            List<Object[]> events = new ArrayList<>();
            List<Object[]> rows = new ArrayList<>();
            ByteArrayOutputStream eventBytes = new ByteArrayOutputStream();
            ByteArrayOutputStream rowBytes = new ByteArrayOutputStream();
            for (int i = 0; i < n; i++) {
                Append a = appends.get(i);
                index[i] = i;
                workflow[i] = a.workflowId();
                expected[i] = a.expectedSeq();
                for (EventEncoder.Encoded e : a.events()) {
                    events.add(new Object[] {
                        i,
                        e.seq(),
                        eventBytes.size() + 1,
                        e.json().length,
                        e.recordedAtNanos(),
                        e.kind(),
                        e.queryable() ? 1 : 0,
                        e.workflowType(),
                        e.childWorkflowId()
                    });
                    eventBytes.writeBytes(e.json());
                }
                for (OutboxRowEncoder.Encoded e : a.rows()) {
                    OutboxRow r = e.row();
                    rows.add(new Object[] {
                        i,
                        r.dispatchKey(),
                        r.workflowId().toString(),
                        r.ordinal(),
                        r.runId() == null ? null : r.runId().toString(),
                        r.namespace(),
                        r.taskQueue(),
                        r.node(),
                        r.activityType(),
                        rowBytes.size() + 1,
                        e.input().length,
                        r.status().token(),
                        (long) r.attempt(),
                        e.visibleAfterNanos(),
                        e.claimedAtNanos(),
                        r.status().isLive() ? null : nowNanos,
                        r.traceContext(),
                        r.priority()
                    });
                    rowBytes.writeBytes(e.input());
                }
            }
            Object[] args = new Object[32];
            args[0] = index;
            args[1] = workflow;
            args[2] = expected;
            Class<?>[] eventTypes = {
                Integer.class,
                Long.class,
                Integer.class,
                Integer.class,
                Long.class,
                String.class,
                Integer.class,
                String.class,
                String.class
            };
            columns(events, eventTypes, args, 3);
            args[12] = eventBytes.toByteArray();
            Class<?>[] rowTypes = {
                Integer.class,
                String.class,
                String.class,
                Long.class,
                String.class,
                String.class,
                String.class,
                String.class,
                String.class,
                Integer.class,
                Integer.class,
                String.class,
                Long.class,
                Long.class,
                Long.class,
                Long.class
            };
            columns(rows, rowTypes, args, 13);
            args[29] = rowBytes.toByteArray();
            // $31, the rows' trace contexts (the 17th value of each row), after the payload bytes
            String[] traces = new String[rows.size()];
            for (int r = 0; r < rows.size(); r++) {
                traces[r] = (String) rows.get(r)[16];
            }
            args[30] = traces;
            // $32, the rows' priorities (the 18th value of each row, O62)
            Integer[] priorities = new Integer[rows.size()];
            for (int r = 0; r < rows.size(); r++) {
                priorities[r] = (Integer) rows.get(r)[17];
            }
            args[31] = priorities;
            return args;
        }

        /** {@link #of} and the settles and timers of steps: the 42 arguments of {@link #STEP}. */
        static Object[] ofSteps(List<Append> appends, long nowNanos) {
            Object[] args = Arrays.copyOf(of(appends, nowNanos), 42);
            List<Object[]> settles = new ArrayList<>();
            List<Object[]> timers = new ArrayList<>();
            for (int i = 0; i < appends.size(); i++) {
                Append a = appends.get(i);
                for (StepEncoder.Settle s : a.settles()) {
                    boolean retry = s.settlement() == WorkflowStep.Settlement.RETRY;
                    settles.add(new Object[] {
                        i,
                        s.dispatchKey(),
                        s.claimToken(),
                        s.settlement().status().token(),
                        retry ? s.nextAttempt() : 0,
                        retry ? s.retryVisibleAfter(nowNanos) : 0L
                    });
                }
                for (StepEncoder.Timer t : a.timers()) {
                    timers.add(new Object[] {i, t.timerId(), t.fireAtNanos()});
                }
            }
            columns(
                    settles,
                    new Class<?>[] {Integer.class, String.class, Long.class, String.class, Integer.class, Long.class},
                    args,
                    32);
            args[38] = nowNanos;
            columns(timers, new Class<?>[] {Integer.class, String.class, Long.class}, args, 39);
            return args;
        }

        /** Turns rows of values into one typed array per column, at {@code args[from…]}. */
        private static void columns(List<Object[]> rows, Class<?>[] types, Object[] args, int from) {
            for (int col = 0; col < types.length; col++) {
                Object[] column = (Object[]) java.lang.reflect.Array.newInstance(types[col], rows.size());
                for (int r = 0; r < rows.size(); r++) {
                    column[r] = rows.get(r)[col];
                }
                args[from + col] = column;
            }
        }
    }

    /** Keeps the first row of each dispatch key: a later one is ignored, as insert-or-ignore in list order does (O9). */
    static List<OutboxRowEncoder.Encoded> firstPerKey(List<OutboxRowEncoder.Encoded> rows) {
        if (rows.size() < 2) {
            return rows;
        }
        Map<String, OutboxRowEncoder.Encoded> first = new LinkedHashMap<>();
        for (OutboxRowEncoder.Encoded r : rows) {
            first.putIfAbsent(r.row().dispatchKey(), r);
        }
        return first.size() == rows.size() ? rows : new ArrayList<>(first.values());
    }
}
