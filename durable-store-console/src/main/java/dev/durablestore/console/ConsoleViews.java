package dev.durablestore.console;

import dev.durablestore.api.AttemptFailure;
import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRouteActivity;
import dev.durablestore.api.OutboxRouteCounts;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RetentionBacklog;
import dev.durablestore.api.RunSummary;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.Event;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The console's read views: the overview of counts, the live rates, the rows and their count, a
 * workflow and its history, each checking its query parameters and shaping the store's answer into
 * the JSON the page reads. None changes anything.
 */
final class ConsoleViews {

    private static final int PAGE = 50;
    private static final int MAX_PAGE = 500;
    private static final int WORKFLOW_ROWS = 500;
    private static final int HISTORY_PAGE = 200;

    private final ReactiveStore store;
    private final ConsoleOptions options;
    private final Clock clock;
    private final CountCache counts;
    private final PayloadPreview payloads;
    private final RateStream rateStream;

    /**
     * @param store the store shown
     * @param options the console's options
     * @param meter the meter of the live rates; null for none
     * @param clock the clock ages are measured with
     */
    ConsoleViews(ReactiveStore store, ConsoleOptions options, TrafficMeter meter, Clock clock) {
        this.store = store;
        this.options = options;
        this.clock = clock;
        this.payloads = new PayloadPreview(options);
        this.counts = new CountCache(
                store, clock, options.lease(), options.countTtl(), options.countCap(), options.retention());
        this.rateStream = meter == null ? null : new RateStream(meter, clock, Duration.ofSeconds(1));
    }

    /** Ends the live streams (the rates); see {@link DurableConsole#close()}. */
    void close() {
        if (rateStream != null) {
            rateStream.close();
        }
    }

    /** {@code GET overview}: the counts by route and status and the retention backlog, from the count cache. */
    Mono<ServerResponse> overview(ServerRequest request) {
        Mono<CountCache.Snapshot> snapshot = Mono.defer(() -> counts.get(fresh(params(request, Set.of("fresh")))));
        return snapshot.flatMap(s -> {
            OutboxCounts c = s.counts();
            List<Map<String, Object>> routes = new ArrayList<>();
            long[] totals = new long[7];
            for (OutboxRouteCounts r : c.routes()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("namespace", r.route().namespace());
                m.put("taskQueue", r.route().taskQueue());
                m.put("node", r.route().node());
                m.put("pending", r.pending());
                m.put("due", r.due());
                m.put("claimed", r.claimed());
                m.put("staleClaimed", r.staleClaimed());
                m.put("done", r.done());
                m.put("failed", r.failed());
                m.put("cancelled", r.cancelled());
                activity(m, s.activity().get(r.route()), s.countedAt());
                routes.add(m);
                long[] v = {r.pending(), r.due(), r.claimed(), r.staleClaimed(), r.done(), r.failed(), r.cancelled()};
                for (int i = 0; i < 7; i++) {
                    totals[i] += v[i];
                }
            }
            Map<String, Object> total = new LinkedHashMap<>();
            String[] names = {"pending", "due", "claimed", "staleClaimed", "done", "failed", "cancelled"};
            for (int i = 0; i < 7; i++) {
                total.put(names[i], totals[i]);
            }
            List<String> capped = new ArrayList<>();
            for (OutboxStatus st : new TreeSet<>(c.capped())) {
                capped.add(st.token());
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("routes", routes);
            body.put("totals", total);
            body.put("capped", capped);
            body.put("cap", c.cap());
            body.put("countedAt", s.countedAt().toString());
            body.put(
                    "ageMillis",
                    Duration.between(s.countedAt(), clock.instant()).toMillis());
            body.put("countMillis", s.tookMillis());
            body.put("lease", options.lease().toString());
            body.put("retention", retention(s.retention()));
            return ConsoleHandlers.ok(body);
        });
    }

    /**
     * The retention backlog (D9) as of the count: {@code {"on":false}} when the console has no
     * retention policy (the store keeps every workflow), otherwise the overdue closed workflows,
     * those of them held by live rows, and the age of the oldest overdue one (0 when none is).
     */
    private static Map<String, Object> retention(RetentionBacklog backlog) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("on", backlog != null);
        if (backlog != null) {
            m.put("overdue", backlog.overdueWorkflows());
            m.put("heldByLiveRows", backlog.heldByLiveRows());
            m.put("oldestAgeMillis", backlog.oldestAge().toMillis());
        }
        return m;
    }

    /**
     * A route's activity (O68) as ages at the count's time: of its oldest due row, of its latest claim
     * and of its latest done or failed settle (null when not found), and whether a claimer was seen
     * within the lease: a claim or such a settle in it. What the database holds, whichever process
     * claimed.
     */
    private void activity(Map<String, Object> m, OutboxRouteActivity a, Instant at) {
        Long due = a == null || a.oldestDue() == null ? null : millis(a.oldestDue(), at);
        Long claimed = a == null || a.lastClaimed() == null ? null : millis(a.lastClaimed(), at);
        Long settled = a == null || a.lastSettled() == null ? null : millis(a.lastSettled(), at);
        long lease = options.lease().toMillis();
        m.put("oldestDueAgeMillis", due);
        m.put("lastClaimAgeMillis", claimed);
        m.put("lastSettleAgeMillis", settled);
        m.put("claimerSeen", (claimed != null && claimed <= lease) || (settled != null && settled <= lease));
    }

    private static long millis(Instant from, Instant to) {
        return Math.max(0, Duration.between(from, to).toMillis());
    }

    /** {@code GET rates}: the live rates, a server-sent-events stream; one "not available" event without a meter. */
    Mono<ServerResponse> rates(ServerRequest request) {
        if (rateStream == null) {
            Flux<ServerSentEvent<Map<String, Object>>> none =
                    Flux.just(ServerSentEvent.<Map<String, Object>>builder(Map.of("available", false))
                            .event("rates")
                            .retry(Duration.ofHours(1))
                            .build());
            return ServerResponse.ok().contentType(MediaType.TEXT_EVENT_STREAM).body(none, ServerSentEvent.class);
        }
        Flux<ServerSentEvent<Map<String, Object>>> events =
                rateStream.events(request.headers().firstHeader("Last-Event-ID"));
        return ServerResponse.ok().contentType(MediaType.TEXT_EVENT_STREAM).body(events, ServerSentEvent.class);
    }

    // ---------------------------------------------------------------- rows

    /**
     * @param params the filter fields, as {@code GET rows} takes them
     * @return the query they select, a page of 50 rows unless {@code limit} (at most 500) says otherwise
     */
    OutboxQuery query(Map<String, String> params) {
        return Filters.parse(params, clock.instant(), options.lease(), PAGE, MAX_PAGE);
    }

    /** The query parameters, each given once (the names are checked by the caller). */
    static Map<String, String> params(ServerRequest request) {
        Map<String, String> params = new LinkedHashMap<>();
        request.queryParams().forEach((k, v) -> {
            if (v.size() != 1) {
                throw ConsoleException.badRequest(
                        "parameter '" + Filters.abbreviate(k) + "' is given " + v.size() + " times");
            }
            params.put(k, v.get(0));
        });
        return params;
    }

    /** The query parameters, each given once and each one of {@code known}. */
    static Map<String, String> params(ServerRequest request, Set<String> known) {
        Map<String, String> params = params(request);
        for (String name : params.keySet()) {
            if (!known.contains(name)) {
                throw ConsoleException.badRequest("unknown parameter '" + Filters.abbreviate(name) + "'; known: "
                        + String.join(", ", new TreeSet<>(known)));
            }
        }
        return params;
    }

    private static boolean fresh(Map<String, String> params) {
        String v = params.get("fresh");
        if (v == null || v.isBlank() || v.equals("false")) {
            return false;
        }
        if (v.equals("true")) {
            return true;
        }
        throw ConsoleException.badRequest("fresh must be true or false, was '" + Filters.abbreviate(v) + "'");
    }

    /** {@code GET rows}: a page of the rows the filter selects, and the key the next page starts after. */
    Mono<ServerResponse> rows(ServerRequest request) {
        return Mono.defer(() -> {
            OutboxQuery q = query(params(request));
            return store.listOutbox(q.withLimit(q.limit() + 1)).collectList().flatMap(found -> {
                boolean more = found.size() > q.limit();
                List<OutboxRow> page = more ? found.subList(0, q.limit()) : found;
                List<Map<String, Object>> rows = new ArrayList<>();
                for (OutboxRow r : page) {
                    rows.add(row(r));
                }
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("rows", rows);
                body.put("next", more ? page.get(page.size() - 1).dispatchKey() : null);
                return ConsoleHandlers.ok(body);
            });
        });
    }

    /** {@code GET rows/count}: how many rows the filter selects, counted up to {@link ConsoleOptions#maxBulk()}. */
    Mono<ServerResponse> countRows(ServerRequest request) {
        return Mono.defer(() -> {
            // limit and after are checked as for rows, then not used: the count starts at the first row
            OutboxQuery q = query(params(request));
            return collect(q, options.maxBulk() + 1).flatMap(found -> {
                Map<String, Object> body = new LinkedHashMap<>();
                boolean capped = found.size() > options.maxBulk();
                body.put("count", capped ? options.maxBulk() : found.size());
                body.put("capped", capped);
                body.put("maxBulk", options.maxBulk());
                return ConsoleHandlers.ok(body);
            });
        });
    }

    /**
     * Pages through the listing until {@code max} rows or the end: what {@code rows/count} counts,
     * and what an action by filter takes.
     *
     * @param query the filter; its page size and start key are not used
     * @param max the most rows to take
     * @return the rows, in the listing's order
     */
    Mono<List<OutboxRow>> collect(OutboxQuery query, int max) {
        List<OutboxRow> all = new ArrayList<>();
        return Mono.defer(() -> page(query.withAfterKey(null), max, all)).thenReturn(all);
    }

    private Mono<Void> page(OutboxQuery query, int max, List<OutboxRow> all) {
        int want = Math.min(1000, max - all.size());
        if (want <= 0) {
            return Mono.empty();
        }
        return store.listOutbox(query.withLimit(want)).collectList().flatMap(found -> {
            all.addAll(found);
            if (found.size() < want) {
                return Mono.empty();
            }
            return page(query.withAfterKey(found.get(found.size() - 1).dispatchKey()), max, all);
        });
    }

    private Map<String, Object> row(OutboxRow r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("dispatchKey", r.dispatchKey());
        m.put("workflowId", r.workflowId().toString());
        m.put("ordinal", r.ordinal());
        m.put("runId", r.runId() == null ? null : r.runId().toString());
        m.put("namespace", r.namespace());
        m.put("taskQueue", r.taskQueue());
        m.put("node", r.node());
        m.put("activityType", r.activityType());
        m.put("status", r.status().token());
        // numbered from 1, as the row's failures and the dispatcher's log number attempts (O67): the
        // attempt the row is on, was last on, or is due for
        m.put("attempt", r.attempt() + 1L);
        m.put("visibleAfter", r.visibleAfter().toString());
        m.put("claimedAt", r.claimedAt() == null ? null : r.claimedAt().toString());
        m.put(
                "claimAgeMillis",
                r.claimedAt() == null
                        ? null
                        : Duration.between(r.claimedAt(), clock.instant()).toMillis());
        Payload input = r.input();
        m.put("contentType", input.contentType().toString());
        m.put("inputBytes", input.size());
        payloads.payload(m, "input", input);
        m.put("failures", failures(r));
        return m;
    }

    /**
     * The row's failed attempts (O66), oldest first: attempt (from 1), time and type always; message
     * and trace only with previews on, since an exception's message may quote the data it failed on.
     */
    private List<Map<String, Object>> failures(OutboxRow r) {
        List<Map<String, Object>> out = new ArrayList<>(r.failures().size());
        for (AttemptFailure f : r.failures()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("attempt", f.attempt());
            m.put("failedAt", f.failedAt().toString());
            m.put("type", f.reason().type());
            if (options.previews()) {
                m.put("message", f.reason().message());
                m.put("trace", f.reason().trace());
            }
            out.add(m);
        }
        return out;
    }

    // ---------------------------------------------------------------- workflow view

    /** {@code GET workflows/{id}}: a workflow's summary, run chain, head and outbox rows. */
    Mono<ServerResponse> workflow(ServerRequest request) {
        return Mono.defer(() -> {
            WorkflowId id = Filters.workflowId(request.pathVariable("id"));
            Mono<Map<String, Object>> summary = store.readSummary(id).map(ConsoleViews::summary);
            Mono<List<RunSummary>> runs = store.readRunChain(id).onErrorResume(e -> Mono.just(List.of()));
            Mono<Long> head = store.readHead(id);
            Mono<List<OutboxRow>> rows = store.listOutbox(
                            OutboxQuery.all(WORKFLOW_ROWS + 1).withWorkflowId(id))
                    .collectList();
            return Mono.zip(summary.map(List::of).defaultIfEmpty(List.of()), runs, head, rows)
                    .flatMap(t -> {
                        if (t.getT1().isEmpty() && t.getT3() == 0 && t.getT4().isEmpty()) {
                            return Mono.error(ConsoleException.notFound("no workflow " + id + " in this store"));
                        }
                        Map<String, Object> body = new LinkedHashMap<>();
                        body.put("workflowId", id.toString());
                        body.put(
                                "summary",
                                t.getT1().isEmpty() ? null : t.getT1().get(0));
                        List<Map<String, Object>> chain = new ArrayList<>();
                        for (RunSummary r : t.getT2()) {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("runId", r.runId().toString());
                            m.put(
                                    "parentRunId",
                                    r.parentRunId() == null
                                            ? null
                                            : r.parentRunId().toString());
                            m.put("status", r.status().name());
                            m.put("startedAt", r.startedAt().toString());
                            m.put(
                                    "closedAt",
                                    r.closedAt() == null ? null : r.closedAt().toString());
                            chain.add(m);
                        }
                        body.put("runChain", chain);
                        body.put("head", t.getT3());
                        List<OutboxRow> found = t.getT4();
                        List<Map<String, Object>> outbox = new ArrayList<>();
                        Map<String, Long> states = new LinkedHashMap<>();
                        for (OutboxStatus s : OutboxStatus.values()) {
                            states.put(s.token(), 0L);
                        }
                        for (OutboxRow r : found.subList(0, Math.min(found.size(), WORKFLOW_ROWS))) {
                            outbox.add(row(r));
                            states.merge(r.status().token(), 1L, Long::sum);
                        }
                        body.put("outbox", outbox);
                        body.put("outboxStates", states);
                        body.put("outboxMore", found.size() > WORKFLOW_ROWS);
                        return ConsoleHandlers.ok(body);
                    });
        });
    }

    /** @return a workflow's summary as the workflow page and the workflow list show it */
    static Map<String, Object> summary(WorkflowSummary s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workflowType", s.workflowType());
        m.put("status", s.status().name());
        m.put("startedAt", s.startedAt().toString());
        m.put("endedAt", s.endedAt() == null ? null : s.endedAt().toString());
        m.put("parent", s.parent() == null ? null : s.parent().toString());
        m.put("failedStep", s.failedStep());
        m.put("failureReason", s.failureReason());
        return m;
    }

    /** {@code GET workflows/{id}/history}: a page of a workflow's events. */
    Mono<ServerResponse> history(ServerRequest request) {
        return Mono.defer(() -> {
            WorkflowId id = Filters.workflowId(request.pathVariable("id"));
            Map<String, String> params = params(request, Set.of("from", "limit"));
            long from = number(params, "from", 1, Long.MAX_VALUE, 1);
            int limit = (int) number(params, "limit", 1, HISTORY_PAGE, 100);
            return store.readHead(id).flatMap(head -> {
                if (head == 0) {
                    return Mono.error(ConsoleException.notFound("no history for workflow " + id + " in this store"));
                }
                return store.readHistoryFrom(id, from)
                        .take(limit + 1L)
                        .collectList()
                        .flatMap(events -> {
                            boolean more = events.size() > limit;
                            List<Map<String, Object>> out = new ArrayList<>();
                            for (Event e : more ? events.subList(0, limit) : events) {
                                Map<String, Object> m = new LinkedHashMap<>();
                                m.put("seq", e.envelope().seq());
                                m.put("kind", e.kind().typeName());
                                m.put("group", e.kind().group().name());
                                m.put("recordedAt", e.recordedAt().toString());
                                m.put("bytes", payloads.event(m, "preview", e));
                                out.add(m);
                            }
                            Map<String, Object> body = new LinkedHashMap<>();
                            body.put("events", out);
                            body.put("head", head);
                            body.put("next", more ? events.get(limit).envelope().seq() : null);
                            return ConsoleHandlers.ok(body);
                        });
            });
        });
    }

    static long number(Map<String, String> params, String name, long min, long max, long dflt) {
        String v = params.get(name);
        return v == null || v.isBlank() ? dflt : Filters.wholeNumber(name, v, min, max);
    }
}
