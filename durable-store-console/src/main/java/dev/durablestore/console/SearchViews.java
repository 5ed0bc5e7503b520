package dev.durablestore.console;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowStatus;
import dev.durablestore.api.WorkflowSummary;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The console's searches over the store's own listings: workflows by type, status, start time and
 * parent ({@code OperatorStore.query}) and timers by due time and workflow
 * ({@code ReactiveStore.expiredTimers}). Neither listing takes a cursor or a limit, so each page is
 * cut from the listing here: a page holds at most {@code limit} entries and continues after the last
 * one by keyset (its start time and id, or its fire time, workflow and timer), in the store's own
 * order, so a page neither repeats nor skips an entry that stays put. Each page costs the store what
 * the whole listing costs (see {@code docs/console.md}). None changes anything.
 */
final class SearchViews {

    /** The latest instant a store holds (epoch nanoseconds in a long: 2262-04-11T23:47:16.854775807Z). */
    static final Instant LATEST = Instant.ofEpochSecond(0, Long.MAX_VALUE);

    private static final int PAGE = 50;
    private static final int MAX_PAGE = 500;
    private static final Set<String> WORKFLOW_PARAMS =
            Set.of("type", "status", "startedAfter", "startedBefore", "parent", "after", "limit");
    private static final Set<String> TIMER_PARAMS = Set.of("dueWithin", "workflowId", "after", "limit");

    /** Newest start first: the store's order (R38) reversed. */
    private static final Comparator<WorkflowSummary> NEWEST_FIRST = Comparator.comparing(WorkflowSummary::startedAt)
            .thenComparing(WorkflowSummary::workflowId)
            .reversed();

    /** The store's order of due timers (T4): fire time, then workflow id and timer id in code-point order. */
    private static final Comparator<TimerEntry> TIMER_ORDER = Comparator.comparing(TimerEntry::fireAt)
            .thenComparing(TimerEntry::workflowId)
            .thenComparing(e -> e.timerId().canonicalText(), SearchViews::codePointOrder);

    private final ReactiveStore store;
    private final Clock clock;
    private final Function<WorkflowSummary, Map<String, Object>> summary;

    /**
     * @param store the store searched
     * @param clock what "now" is, for ages and due times
     * @param summary how a workflow's summary is shown, as on the workflow page
     */
    SearchViews(ReactiveStore store, Clock clock, Function<WorkflowSummary, Map<String, Object>> summary) {
        this.store = store;
        this.clock = clock;
        this.summary = summary;
    }

    // ---------------------------------------------------------------- workflows

    /**
     * {@code GET workflows}: a page of the workflows the filter selects, newest start first, and the
     * cursor of the next page.
     */
    Mono<ServerResponse> workflows(ServerRequest request) {
        return Mono.defer(() -> {
            Map<String, String> params = ConsoleViews.params(request, WORKFLOW_PARAMS);
            Instant now = clock.instant();
            WorkflowFilter filter = WorkflowFilter.all().withWorkflowType(Filters.text(params, "type"));
            String status = Filters.blankToNull(params.get("status"));
            if (status != null) {
                filter = filter.withStatus(status(status));
            }
            String after = Filters.blankToNull(params.get("startedAfter"));
            if (after != null) {
                filter = filter.withStartedAfter(Filters.instant("startedAfter", after, now));
            }
            String before = Filters.blankToNull(params.get("startedBefore"));
            if (before != null) {
                filter = filter.withStartedBefore(Filters.instant("startedBefore", before, now));
            }
            String parent = Filters.blankToNull(params.get("parent"));
            if (parent != null) {
                filter = filter.withParent(Filters.workflowId("parent", parent));
            }
            int limit = (int) ConsoleViews.number(params, "limit", 1, MAX_PAGE, PAGE);
            String cursorText = Filters.blankToNull(params.get("after"));
            Flux<WorkflowSummary> listed;
            if (cursorText == null) {
                listed = store.query(filter);
            } else {
                WorkflowSummary cursor = workflowCursor(cursorText);
                // the rest of the listing starts at the cursor's start time or before it
                Instant bound =
                        filter.startedBefore() == null || cursor.startedAt().isBefore(filter.startedBefore())
                                ? cursor.startedAt()
                                : filter.startedBefore();
                listed = store.query(filter.withStartedBefore(bound)).filter(s -> NEWEST_FIRST.compare(s, cursor) > 0);
            }
            // the store lists oldest first: its last limit + 1 are the newest, kept in a bounded buffer
            return listed.takeLast(limit + 1).collectList().flatMap(found -> {
                Collections.reverse(found);
                boolean more = found.size() > limit;
                List<WorkflowSummary> page = more ? found.subList(0, limit) : found;
                List<Map<String, Object>> out = new ArrayList<>(page.size());
                for (WorkflowSummary s : page) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("workflowId", s.workflowId().toString());
                    m.putAll(summary.apply(s));
                    out.add(m);
                }
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("workflows", out);
                body.put("next", more ? workflowCursor(page.get(page.size() - 1)) : null);
                return ConsoleHandlers.ok(body);
            });
        });
    }

    private static WorkflowStatus status(String text) {
        try {
            return WorkflowStatus.valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ConsoleException.badRequest("status must be one of "
                    + String.join(
                            ", ",
                            Arrays.stream(WorkflowStatus.values())
                                    .map(Enum::name)
                                    .toList())
                    + "; was '" + Filters.abbreviate(text) + "'");
        }
    }

    /** @return the cursor after a workflow: {@code <startedAt>,<workflowId>} */
    private static String workflowCursor(WorkflowSummary s) {
        return s.startedAt() + "," + s.workflowId();
    }

    /** @return a summary holding the cursor's start time and id, to compare listed ones with */
    private static WorkflowSummary workflowCursor(String text) {
        String[] parts = text.split(",", -1);
        try {
            if (parts.length == 2) {
                return new WorkflowSummary(
                        WorkflowId.parse(parts[1]),
                        "",
                        WorkflowStatus.RUNNING,
                        Instant.parse(parts[0]),
                        null,
                        null,
                        null,
                        null);
            }
        } catch (RuntimeException e) {
            // reported below
        }
        throw ConsoleException.badRequest("after must be the next cursor of a page (<startedAt>,<workflowId>), was '"
                + Filters.abbreviate(text) + "'");
    }

    // ---------------------------------------------------------------- timers

    /**
     * {@code GET timers}: a page of the timers due within a duration from now (every overdue one
     * included), optionally of one workflow, in the store's order (fire time first), and the cursor
     * of the next page.
     */
    Mono<ServerResponse> timers(ServerRequest request) {
        return Mono.defer(() -> {
            Map<String, String> params = ConsoleViews.params(request, TIMER_PARAMS);
            Instant now = clock.instant();
            String within = Filters.blankToNull(params.get("dueWithin"));
            Instant asOf = within == null
                    ? now
                    : within.equals("any") ? LATEST : Filters.ahead("dueWithin", within, now, LATEST);
            String workflowText = Filters.blankToNull(params.get("workflowId"));
            WorkflowId workflow = workflowText == null ? null : Filters.workflowId(workflowText);
            int limit = (int) ConsoleViews.number(params, "limit", 1, MAX_PAGE, PAGE);
            String cursorText = Filters.blankToNull(params.get("after"));
            TimerEntry cursor = cursorText == null ? null : timerCursor(cursorText);
            Flux<TimerEntry> listed = store.expiredTimers(asOf);
            if (workflow != null) {
                listed = listed.filter(t -> t.workflowId().equals(workflow));
            }
            if (cursor != null) {
                listed = listed.filter(t -> TIMER_ORDER.compare(t, cursor) > 0);
            }
            return listed.take(limit + 1L).collectList().flatMap(found -> {
                boolean more = found.size() > limit;
                List<TimerEntry> page = more ? found.subList(0, limit) : found;
                List<Map<String, Object>> out = new ArrayList<>(page.size());
                for (TimerEntry t : page) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("workflowId", t.workflowId().toString());
                    m.put("timerId", t.timerId().canonicalText());
                    m.put("fireAt", t.fireAt().toString());
                    // negative when overdue
                    m.put("dueInMillis", millisBetween(now, t.fireAt()));
                    out.add(m);
                }
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("timers", out);
                body.put("asOf", asOf.toString());
                body.put("next", more ? timerCursor(page.get(page.size() - 1)) : null);
                return ConsoleHandlers.ok(body);
            });
        });
    }

    /** @return the milliseconds from {@code a} to {@code b}, saturated at the range of a long */
    private static long millisBetween(Instant a, Instant b) {
        try {
            return Duration.between(a, b).toMillis();
        } catch (ArithmeticException e) {
            return b.isAfter(a) ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
    }

    /** @return the cursor after a timer: {@code <fireAt>,<workflowId>,<timerId>} */
    private static String timerCursor(TimerEntry t) {
        return t.fireAt() + "," + t.workflowId() + "," + t.timerId().canonicalText();
    }

    private static TimerEntry timerCursor(String text) {
        // the timer id is last: a timer's name may hold commas
        String[] parts = text.split(",", 3);
        try {
            if (parts.length == 3) {
                return new TimerEntry(WorkflowId.parse(parts[1]), TimerId.parse(parts[2]), Instant.parse(parts[0]));
            }
        } catch (RuntimeException e) {
            // reported below
        }
        throw ConsoleException.badRequest("after must be the next cursor of a page (<fireAt>,<workflowId>,<timerId>),"
                + " was '" + Filters.abbreviate(text) + "'");
    }

    private static int codePointOrder(String a, String b) {
        return Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());
    }
}
