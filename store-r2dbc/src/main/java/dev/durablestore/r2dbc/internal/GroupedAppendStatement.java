package dev.durablestore.r2dbc.internal;

import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.BIGINT;
import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.INT;
import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.PAYLOAD;
import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.TEXT;

import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.core.internal.EventEncoder;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.StepEncoder;
import io.r2dbc.spi.Connection;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * The statement of one round of grouped appends on PostgreSQL ({@link GroupedAppends}): one guarded
 * multi-row statement, which commits by itself (one round trip). Each append's events and rows are
 * inserted only when the workflow's committed head equals its expected sequence; the statement
 * names the others with the head it found, and {@link Outcome#refusal} makes that a sequence
 * conflict, exactly as when written one by one.
 *
 * <p>The values travel as arrays ({@link ArrayRelation}: the appends, their events, their outbox
 * rows, a step's settles and timers), the payload bytes of all events (and of all rows) as one
 * value each, cut by offset and length, so a statement has one fixed text per {@linkplain Kind
 * kind} of round and {@linkplain PayloadForm payload form}, six in all, and the server prepares
 * each once per connection. Plain appends (no outbox rows in the round) leave the rows' relation
 * out, so the statement the driver parses and the server runs is the size of what it writes.
 */
final class GroupedAppendStatement {

    /** What a round holds, which decides its statement's shape. */
    enum Kind {
        /** Appends without outbox rows: the statement has no rows' relation. */
        APPENDS,
        /** Appends, some with outbox rows. */
        APPENDS_WITH_ROWS,
        /** At least one workflow step (settles or timers), with the steps' settles and timers. */
        STEPS;

        /**
         * @param appends a round
         * @return the kind of its statement
         */
        static Kind of(List<GroupedAppends.Append> appends) {
            boolean rows = false;
            for (GroupedAppends.Append a : appends) {
                if (a.isStep()) {
                    return STEPS;
                }
                rows |= !a.rows().isEmpty();
            }
            return rows ? APPENDS_WITH_ROWS : APPENDS;
        }
    }

    /** An append of the round and its index, which its events, rows, settles and timers carry. */
    private record AppendAt(int i, GroupedAppends.Append append) {}

    private record EventAt(int append, EventEncoder.Encoded event) {}

    /**
     * A step's fenced settle: a retry's attempt and visibility, 0 for the others (not written); the
     * row's new failures when it gives a reason, else {@code null} (kept as they are, O66).
     */
    private record SettleAt(
            int append,
            String dispatchKey,
            long token,
            String status,
            int attempt,
            long visibleAfter,
            String failures) {}

    private record TimerAt(int append, StepEncoder.Timer timer) {}

    private static final ArrayRelation<AppendAt> APPENDS = ArrayRelation.<AppendAt>named("a")
            .column("i", INT, AppendAt::i)
            .column("w", TEXT, a -> a.append().workflowId())
            .column("expected", BIGINT, a -> a.append().expectedSeq())
            .build();

    private static final ArrayRelation<EventAt> EVENTS = ArrayRelation.<EventAt>named("ev")
            .column("i", INT, EventAt::append)
            .column("seq", BIGINT, e -> e.event().seq())
            .column("event", PAYLOAD, e -> e.event().json())
            .column("recorded_at", BIGINT, e -> e.event().recordedAtNanos())
            .column("kind", TEXT, e -> e.event().kind())
            .column("queryable", INT, e -> e.event().queryable() ? 1 : 0)
            .column("workflow_type", TEXT, e -> e.event().workflowType())
            .column("child_workflow_id", TEXT, e -> e.event().childWorkflowId())
            .build();

    /** The columns of {@code events} taken from {@link #EVENTS}; {@code workflow_id} is the append's. */
    private static final List<String> EVENT_COLUMNS =
            List.of("seq", "event", "recorded_at", "kind", "queryable", "workflow_type", "child_workflow_id");

    private static final ArrayRelation<OutboxRows.Staged> ROWS = ArrayRelation.<OutboxRows.Staged>named("ob")
            .column("i", INT, OutboxRows.Staged::append)
            .columns(OutboxRows.STAGED)
            .build();

    private static final ArrayRelation<SettleAt> SETTLES = ArrayRelation.<SettleAt>named("st")
            .column("i", INT, SettleAt::append)
            .column("dispatch_key", TEXT, SettleAt::dispatchKey)
            .column("token", BIGINT, SettleAt::token)
            .column("status", TEXT, SettleAt::status)
            .column("attempt", INT, SettleAt::attempt)
            .column("visible_after", BIGINT, SettleAt::visibleAfter)
            .column("failures", TEXT, SettleAt::failures)
            .build();

    private static final ArrayRelation<TimerAt> TIMERS = ArrayRelation.<TimerAt>named("tm")
            .column("i", INT, TimerAt::append)
            .column("timer_id", TEXT, t -> t.timer().timerId())
            .column("fire_at", BIGINT, t -> t.timer().fireAtNanos())
            .build();

    /** The parameter of a step's settle time ({@code settled_at} of its terminal settles). */
    private static final String NOW = "now";

    private static final String HEAD = "COALESCE((SELECT max(e.seq) FROM events e WHERE e.workflow_id = a.w), 0)";

    /** The statements, by kind and payload form. */
    private static final Map<Kind, Map<PayloadForm, NamedStatement>> STATEMENTS = statements();

    private GroupedAppendStatement() {}

    private static Map<Kind, Map<PayloadForm, NamedStatement>> statements() {
        Map<Kind, Map<PayloadForm, NamedStatement>> all = new EnumMap<>(Kind.class);
        for (Kind kind : Kind.values()) {
            Map<PayloadForm, NamedStatement> forms = new EnumMap<>(PayloadForm.class);
            for (PayloadForm form : PayloadForm.values()) {
                forms.put(form, kind == Kind.STEPS ? step(form) : append(kind, form));
            }
            all.put(kind, forms);
        }
        return all;
    }

    /**
     * The guarded append of a round. It returns a row only for an append whose head was not its
     * expected sequence (nothing for a round that committed whole): an append without a row
     * committed.
     */
    private static NamedStatement append(Kind kind, PayloadForm form) {
        NamedStatement.Builder p = NamedStatement.builder(form);
        String sql = "WITH a AS (SELECT * FROM " + APPENDS.unnest(p) + "), "
                + "h AS (SELECT a.i, a.w, a.expected, " + HEAD + " AS head FROM a), "
                + "ok AS (SELECT i, w FROM h WHERE head = expected), "
                + inserts(p, kind != Kind.APPENDS)
                + " SELECT i, head, true, NULL::text[] FROM h WHERE head <> expected";
        return p.build(sql);
    }

    /**
     * The guarded append with the settles and timers of workflow steps (W1–W12): the settled rows
     * are locked first, and a step writes only when its head is its expected sequence and every row
     * it settles is still claimed under the step's claim token (W6, W7); it then settles those rows
     * and schedules or deletes its timers in the same statement. A step that fails either check
     * writes nothing. Each step comes back with its head and the keys whose claims were current.
     */
    private static NamedStatement step(PayloadForm form) {
        NamedStatement.Builder p = NamedStatement.builder(form);
        String sql = "WITH a AS (SELECT * FROM " + APPENDS.unnest(p) + "), "
                + "st AS (SELECT * FROM " + SETTLES.unnest(p) + "), "
                + "locked AS MATERIALIZED (SELECT st.i, o.dispatch_key FROM outbox o JOIN st ON o.dispatch_key = "
                + "st.dispatch_key AND o.claim_token = st.token WHERE o.status = 'claimed' ORDER BY o.dispatch_key "
                + "FOR UPDATE OF o), "
                + "h AS (SELECT a.i, a.w, a.expected, " + HEAD + " AS head, "
                + "(SELECT count(*) FROM st WHERE st.i = a.i) = (SELECT count(*) FROM locked l WHERE l.i = a.i) "
                + "AS fenced, (SELECT array_agg(l.dispatch_key) FROM locked l WHERE l.i = a.i) AS current FROM a), "
                + "ok AS (SELECT i, w FROM h WHERE head = expected AND fenced), "
                + inserts(p, true) + ", "
                + "upd AS (UPDATE outbox o SET status = st.status, claimed_at = NULL, "
                + "attempt = CASE WHEN st.status = 'pending' THEN st.attempt ELSE o.attempt END, "
                + "visible_after = CASE WHEN st.status = 'pending' THEN st.visible_after ELSE o.visible_after END, "
                + "settled_at = CASE WHEN st.status = 'pending' THEN o.settled_at ELSE " + p.marker(NOW)
                + "::bigint END, failures = COALESCE(st.failures, o.failures) "
                + "FROM st JOIN ok ON ok.i = st.i WHERE o.dispatch_key = st.dispatch_key AND o.claim_token = st.token "
                + "AND o.status = 'claimed' RETURNING 1), "
                + "tm AS (SELECT * FROM " + TIMERS.unnest(p) + "), "
                + "tup AS (INSERT INTO timers (workflow_id, timer_id, fire_at) SELECT ok.w, tm.timer_id, tm.fire_at "
                + "FROM tm JOIN ok ON ok.i = tm.i WHERE tm.fire_at IS NOT NULL "
                + "ON CONFLICT (workflow_id, timer_id) DO UPDATE SET fire_at = excluded.fire_at RETURNING 1), "
                + "tdel AS (DELETE FROM timers t USING tm JOIN ok ON ok.i = tm.i WHERE tm.fire_at IS NULL "
                + "AND t.workflow_id = ok.w AND t.timer_id = tm.timer_id RETURNING 1) "
                + "SELECT i, head, fenced, current FROM h";
        return p.build(sql);
    }

    /**
     * @return the inserts of the events and (with {@code rows}) the outbox rows of the appends that
     *     passed their checks ({@code ok}); a row whose key is stored already is skipped (O9, E21)
     */
    private static String inserts(NamedStatement.Builder p, boolean rows) {
        String events = "ev AS (SELECT * FROM " + EVENTS.unnest(p) + "), "
                + "ins AS (INSERT INTO events (workflow_id, " + String.join(", ", EVENT_COLUMNS) + ") "
                + "SELECT ok.w, " + EVENTS.values(EVENT_COLUMNS, p) + " FROM ev JOIN ok ON ok.i = ev.i)";
        if (!rows) {
            return events;
        }
        return events + ", ob AS (SELECT * FROM " + ROWS.unnest(p) + "), "
                + "obi AS (INSERT INTO outbox (" + String.join(", ", OutboxRows.STAGED_NAMES) + ") "
                + "SELECT " + ROWS.values(OutboxRows.STAGED_NAMES, p) + " FROM ob JOIN ok ON ok.i = ob.i "
                + "ON CONFLICT DO NOTHING)";
    }

    /**
     * Runs the statement of a round; returns each append's outcome, by index. A plain append's
     * statement names only the refused appends: the others get their expected sequence as their
     * head (they committed).
     *
     * @param c a connection, outside any transaction (the statement commits by itself)
     * @param appends the round
     * @param nowNanos the store clock: the settle time of rows staged settled and of terminal settles
     * @return the outcomes
     * @throws dev.durablestore.api.InvalidArgumentException when a step's retry delay takes its
     *     row's visibility out of the storable range (O58), before anything is sent
     */
    static Mono<Map<Integer, Outcome>> run(Connection c, List<GroupedAppends.Append> appends, long nowNanos) {
        Kind kind = Kind.of(appends);
        NamedStatement.Arguments args = arguments(kind, appends, nowNanos);
        NamedStatement statement = statement(kind, args.form());
        Mono<Map<Integer, Outcome>> outcomes = Sql.query(
                        c,
                        statement.sql(),
                        row -> {
                            Object current = row.get(3);
                            Set<String> keys = current instanceof String[] texts ? Set.of(texts) : Set.of();
                            return Map.entry(
                                    Sql.longAt(row, 0).intValue(),
                                    new Outcome(
                                            Sql.longAt(row, 1), Boolean.TRUE.equals(row.get(2, Boolean.class)), keys));
                        },
                        statement.bind(args))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue);
        if (kind == Kind.STEPS) {
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

    /**
     * @param kind a kind of round
     * @param form how its payloads travel
     * @return its statement
     */
    static NamedStatement statement(Kind kind, PayloadForm form) {
        return STATEMENTS.get(kind).get(form);
    }

    /**
     * @return the arguments of a round's statement, by name: the appends, their events and rows,
     *     and for steps the settles, the settle time and the timers
     */
    static NamedStatement.Arguments arguments(Kind kind, List<GroupedAppends.Append> appends, long nowNanos) {
        List<AppendAt> heads = new ArrayList<>(appends.size());
        List<EventAt> events = new ArrayList<>();
        List<OutboxRows.Staged> rows = new ArrayList<>();
        List<SettleAt> settles = new ArrayList<>();
        List<TimerAt> timers = new ArrayList<>();
        for (int i = 0; i < appends.size(); i++) {
            GroupedAppends.Append a = appends.get(i);
            heads.add(new AppendAt(i, a));
            for (EventEncoder.Encoded e : a.events()) {
                events.add(new EventAt(i, e));
            }
            for (OutboxRowEncoder.Encoded r : a.rows()) {
                rows.add(OutboxRows.Staged.of(i, r, nowNanos));
            }
            for (StepEncoder.Settle s : a.settles()) {
                boolean retry = s.kind() == Settlement.Kind.RETRY;
                settles.add(new SettleAt(
                        i,
                        s.dispatchKey(),
                        s.claimToken(),
                        s.kind().status().token(),
                        retry ? s.nextAttempt() : 0,
                        retry ? s.retryVisibleAfter(nowNanos) : 0L,
                        s.failuresAfter(nowNanos)));
            }
            for (StepEncoder.Timer t : a.timers()) {
                timers.add(new TimerAt(i, t));
            }
        }
        NamedStatement.Arguments args = new NamedStatement.Arguments();
        APPENDS.put(heads, args);
        EVENTS.put(events, args);
        if (kind != Kind.APPENDS) {
            ROWS.put(rows, args);
        }
        if (kind == Kind.STEPS) {
            SETTLES.put(settles, args);
            args.put(NOW, nowNanos);
            TIMERS.put(timers, args);
        }
        return args;
    }

    /**
     * What the statement says of one append.
     *
     * @param head the workflow's committed head before the statement
     * @param fenced for a step, whether every row it settles was still claimed under its token
     * @param current for a step, the keys whose claims were current
     */
    record Outcome(long head, boolean fenced, Set<String> current) {

        /**
         * @param a the append (or step) the outcome is of
         * @return null when it committed; else why it wrote nothing: the guard first (E3, E4),
         *     then the first settle whose claim was not current (W7)
         */
        Throwable refusal(GroupedAppends.Append a) {
            if (head != a.expectedSeq()) {
                return new SequenceConflictException(a.expectedSeq(), head);
            }
            if (!fenced) {
                for (StepEncoder.Settle s : a.settles()) {
                    if (!current.contains(s.dispatchKey())) {
                        return new StaleClaimException(a.name(), s.dispatchKey(), s.claimToken());
                    }
                }
                return new IllegalStateException("the grouped step reported a stale claim it does not settle");
            }
            return null;
        }
    }
}
