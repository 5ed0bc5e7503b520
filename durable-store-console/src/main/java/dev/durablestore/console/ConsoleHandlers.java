package dev.durablestore.console;

import static org.springframework.web.reactive.function.server.RequestPredicates.GET;
import static org.springframework.web.reactive.function.server.RequestPredicates.POST;

import dev.durablestore.api.OutboxCounts;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRouteCounts;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunSummary;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.Event;
import dev.durablestore.core.codec.EventCodec;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The console's routes and handlers; see {@link DurableConsole}. */
final class ConsoleHandlers {

    private static final Logger log = LoggerFactory.getLogger(ConsoleHandlers.class);
    private static final String STATIC = "dev/durablestore/console/static/";
    private static final int PAGE = 50;
    private static final int MAX_PAGE = 500;
    private static final int WORKFLOW_ROWS = 500;
    private static final int HISTORY_PAGE = 200;
    /** The filter fields that page a listing, not part of what an action by filter selects. */
    private static final Set<String> PAGING = Set.of("after", "limit");

    private static final Set<String> ACTION_FIELDS = Set.of("keys", "filter", "workflowId", "resetAttempt", "confirm");
    private static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    private final ReactiveStore store;
    private final ConsoleOptions options;
    private final ConsoleAuthorizer authorizer;
    private final TrafficMeter meter;
    private final Clock clock;
    private final String base;
    private final CountCache counts;
    private final Csrf csrf = new Csrf();
    private final EventCodec codec = EventCodec.create();
    private final RateStream rateStream;

    ConsoleHandlers(
            ReactiveStore store,
            ConsoleOptions options,
            ConsoleAuthorizer authorizer,
            TrafficMeter meter,
            Clock clock,
            String base) {
        this.store = store;
        this.options = options;
        this.authorizer = authorizer;
        this.meter = meter;
        this.clock = clock;
        this.base = base;
        this.counts = new CountCache(store, clock, options.lease(), options.countTtl(), options.countCap());
        this.rateStream = meter == null ? null : new RateStream(meter, clock, Duration.ofSeconds(1));
    }

    /** Ends the live streams (the rates), for a server shutting down; see {@link DurableConsole#close()}. */
    void close() {
        if (rateStream != null) {
            rateStream.close();
        }
    }

    RouterFunction<ServerResponse> routes() {
        String api = base + "/api";
        return RouterFunctions.route(
                        GET(base),
                        r -> ServerResponse.permanentRedirect(URI.create(base + "/"))
                                .build())
                .andRoute(GET(base + "/"), this::index)
                .and(RouterFunctions.resources(base + "/static/**", new ClassPathResource(STATIC)))
                .andRoute(GET(api + "/session"), this::session)
                .andRoute(GET(api + "/overview"), this::overview)
                .andRoute(GET(api + "/rates"), this::rates)
                .andRoute(GET(api + "/rows"), this::rows)
                .andRoute(GET(api + "/rows/count"), this::countRows)
                .andRoute(GET(api + "/workflows/{id}"), this::workflow)
                .andRoute(GET(api + "/workflows/{id}/history"), this::history)
                .andRoute(POST(api + "/actions/{action}"), this::action)
                .filter((request, next) -> {
                    secure(
                            request.exchange().getResponse().getHeaders(),
                            request.path().startsWith(api + "/"));
                    return next.handle(request).onErrorResume(e -> error(request, e));
                });
    }

    /** Headers of every console response, set on the exchange before the handler writes its own. */
    private static void secure(HttpHeaders h, boolean api) {
        h.set("X-Content-Type-Options", "nosniff");
        h.set("Referrer-Policy", "no-referrer");
        h.set("X-Frame-Options", "DENY");
        h.set("Content-Security-Policy", CSP);
        if (api) {
            h.setCacheControl("no-store");
        }
    }

    /**
     * The answer to a failed request: a refusal ({@link ConsoleException#refusal}) is a 4xx logged in
     * one line; anything else is the console's or the store's failure, a 500 logged with its trace.
     */
    private Mono<ServerResponse> error(ServerRequest request, Throwable e) {
        ConsoleException refused = ConsoleException.refusal(e);
        if (refused != null) {
            log.info(
                    "console refused {} {}: {} {}",
                    request.method(),
                    oneLine(request.path()),
                    refused.status().value(),
                    oneLine(refused.getMessage()));
            return json(refused.status(), Map.of("error", refused.error(), "message", refused.getMessage()));
        }
        log.warn("console {} {} failed", request.method(), oneLine(request.path()), e);
        return json(
                HttpStatus.INTERNAL_SERVER_ERROR,
                Map.of(
                        "error",
                        "internal",
                        "message",
                        "the request failed: " + e.getClass().getSimpleName()));
    }

    /** The text with control characters and line breaks escaped, so that a log line stays one line. */
    private static String oneLine(String text) {
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static Mono<ServerResponse> json(HttpStatus status, Object body) {
        return ServerResponse.status(status)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body);
    }

    private static Mono<ServerResponse> ok(Object body) {
        return json(HttpStatus.OK, body);
    }

    // ---------------------------------------------------------------- pages and session

    private Mono<ServerResponse> index(ServerRequest request) {
        return ServerResponse.ok()
                .contentType(MediaType.TEXT_HTML)
                .bodyValue(new ClassPathResource(STATIC + "index.html"));
    }

    private Mono<ServerResponse> session(ServerRequest request) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("readOnly", options.readOnly());
        body.put("previews", options.previews());
        body.put("previewBytes", options.previewBytes());
        body.put("lease", options.lease().toString());
        body.put("leaseSeconds", options.lease().toSeconds());
        body.put("maxBulk", options.maxBulk());
        body.put("countCap", options.countCap());
        body.put("countTtlMillis", options.countTtl().toMillis());
        body.put("rates", meter != null);
        List<String> actions = new ArrayList<>();
        if (options.readOnly()) {
            body.put("actions", actions);
            return ok(body);
        }
        for (ConsoleAction a : ConsoleAction.values()) {
            actions.add(a.token());
        }
        body.put("actions", actions);
        String cookie = request.cookies().getFirst(Csrf.COOKIE) == null
                ? null
                : request.cookies().getFirst(Csrf.COOKIE).getValue();
        String token = csrf.valid(cookie) ? cookie : csrf.newToken();
        body.put("csrfToken", token);
        ResponseCookie c = ResponseCookie.from(Csrf.COOKIE, token)
                .httpOnly(true)
                .sameSite("Strict")
                .secure("https".equalsIgnoreCase(request.uri().getScheme()))
                .path(base + "/")
                .build();
        // the host's own CSRF token too (Spring Security), for the page to send with every action
        return HostCsrf.of(request.exchange())
                .doOnNext(host -> body.put("hostCsrf", host))
                .then(Mono.defer(() -> ServerResponse.ok()
                        .contentType(MediaType.APPLICATION_JSON)
                        .cookie(c)
                        .bodyValue(body)));
    }

    // ---------------------------------------------------------------- overview and rates

    private Mono<ServerResponse> overview(ServerRequest request) {
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
            return ok(body);
        });
    }

    private Mono<ServerResponse> rates(ServerRequest request) {
        if (meter == null) {
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

    private OutboxQuery query(Map<String, String> params, int defaultLimit, int maxLimit) {
        return Filters.parse(params, clock.instant(), options.lease(), defaultLimit, maxLimit);
    }

    /** The query parameters, each given once (the names are checked by the caller). */
    private static Map<String, String> params(ServerRequest request) {
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
    private static Map<String, String> params(ServerRequest request, Set<String> known) {
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

    private Mono<ServerResponse> rows(ServerRequest request) {
        return Mono.defer(() -> {
            OutboxQuery q = query(params(request), PAGE, MAX_PAGE);
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
                return ok(body);
            });
        });
    }

    private Mono<ServerResponse> countRows(ServerRequest request) {
        return Mono.defer(() -> {
            // limit and after are checked as for rows, then not used: the count starts at the first row
            OutboxQuery q = query(params(request), PAGE, MAX_PAGE);
            return collect(q, options.maxBulk() + 1).flatMap(found -> {
                Map<String, Object> body = new LinkedHashMap<>();
                boolean capped = found.size() > options.maxBulk();
                body.put("count", capped ? options.maxBulk() : found.size());
                body.put("capped", capped);
                body.put("maxBulk", options.maxBulk());
                return ok(body);
            });
        });
    }

    /** Pages through the listing until {@code max} rows or the end. */
    private Mono<List<OutboxRow>> collect(OutboxQuery query, int max) {
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
        m.put("attempt", r.attempt());
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
        preview(m, "input", input.bytes());
        return m;
    }

    private void preview(Map<String, Object> m, String name, byte[] bytes) {
        if (!options.previews()) {
            return;
        }
        int n = Math.min(bytes.length, options.previewBytes());
        m.put(name, utf8Prefix(bytes, n));
        m.put(name + "Truncated", bytes.length > n);
    }

    /** The longest valid UTF-8 text in the first {@code n} bytes (a cut character is dropped, bad bytes replaced). */
    private static String utf8Prefix(byte[] bytes, int n) {
        CharsetDecoder d = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        CharBuffer out = CharBuffer.allocate(n + 1);
        d.decode(ByteBuffer.wrap(bytes, 0, n), out, n == bytes.length);
        out.flip();
        return out.toString();
    }

    // ---------------------------------------------------------------- workflow view

    private Mono<ServerResponse> workflow(ServerRequest request) {
        return Mono.defer(() -> {
            WorkflowId id = Filters.workflowId(request.pathVariable("id"));
            Mono<Map<String, Object>> summary = store.readSummary(id).map(this::summary);
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
                        return ok(body);
                    });
        });
    }

    private Map<String, Object> summary(WorkflowSummary s) {
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

    private Mono<ServerResponse> history(ServerRequest request) {
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
                                byte[] json = codec.encode(e);
                                m.put("bytes", json.length);
                                preview(m, "preview", json);
                                out.add(m);
                            }
                            Map<String, Object> body = new LinkedHashMap<>();
                            body.put("events", out);
                            body.put("head", head);
                            body.put("next", more ? events.get(limit).envelope().seq() : null);
                            return ok(body);
                        });
            });
        });
    }

    private static long number(Map<String, String> params, String name, long min, long max, long dflt) {
        String v = params.get(name);
        return v == null || v.isBlank() ? dflt : Filters.wholeNumber(name, v, min, max);
    }

    // ---------------------------------------------------------------- actions

    private Mono<ServerResponse> action(ServerRequest request) {
        return Mono.defer(() -> {
            if (options.readOnly()) {
                throw ConsoleException.forbidden("read-only", "the console is read-only: it takes no action");
            }
            ConsoleAction action = actionOf(request.pathVariable("action"));
            checkCsrf(request);
            checkJson(request);
            return request.bodyToMono(Map.class)
                    .switchIfEmpty(Mono.error(ConsoleException.badRequest("the body must be a JSON object")))
                    .map(body -> ActionRequest.parse(body, this))
                    .flatMap(parsed -> authorizer
                            .authorize(action, request)
                            .onErrorReturn(false)
                            .defaultIfEmpty(false)
                            .flatMap(allowed -> {
                                if (!allowed) {
                                    return Mono.error(ConsoleException.forbidden(
                                            "not-allowed", "the host's authorizer refused " + action.token()));
                                }
                                return run(action, parsed);
                            }))
                    .flatMap(ConsoleHandlers::ok);
        });
    }

    private static ConsoleAction actionOf(String token) {
        for (ConsoleAction a : ConsoleAction.values()) {
            if (a.token().equals(token)) {
                return a;
            }
        }
        throw ConsoleException.notFound(
                "no action '" + Filters.abbreviate(token) + "'; known: redrive, release, cancel");
    }

    private void checkCsrf(ServerRequest request) {
        String origin = request.headers().firstHeader(HttpHeaders.ORIGIN);
        if (origin != null) {
            URI o;
            try {
                o = new URI(origin);
            } catch (URISyntaxException e) {
                throw ConsoleException.forbidden(
                        "csrf", "the Origin header is not an origin: '" + Filters.abbreviate(origin) + "'");
            }
            URI self = request.uri();
            if (o.getHost() == null || !o.getHost().equalsIgnoreCase(self.getHost()) || port(o) != port(self)) {
                throw ConsoleException.forbidden(
                        "csrf",
                        "the request comes from another origin (Origin header '" + Filters.abbreviate(origin) + "')");
            }
        }
        String cookie = request.cookies().getFirst(Csrf.COOKIE) == null
                ? null
                : request.cookies().getFirst(Csrf.COOKIE).getValue();
        if (!csrf.matches(cookie, request.headers().firstHeader(Csrf.HEADER))) {
            throw ConsoleException.forbidden(
                    "csrf",
                    "missing or wrong CSRF token: load " + base + "/api/session and send its csrfToken in the "
                            + Csrf.HEADER + " header");
        }
    }

    /** An action's body is JSON: any other (or no, or an unreadable) Content-Type is a 415 before it is read. */
    private static void checkJson(ServerRequest request) {
        String header = request.headers().firstHeader(HttpHeaders.CONTENT_TYPE);
        String problem;
        if (header == null) {
            problem = "none was given";
        } else {
            try {
                if (MediaType.APPLICATION_JSON.equalsTypeAndSubtype(MediaType.parseMediaType(header))) {
                    return;
                }
                problem = "was '" + Filters.abbreviate(header) + "'";
            } catch (InvalidMediaTypeException e) {
                problem = "was '" + Filters.abbreviate(header) + "' (" + e.getMessage() + ")";
            }
        }
        throw ConsoleException.of(
                HttpStatus.UNSUPPORTED_MEDIA_TYPE, "the Content-Type header must be application/json; " + problem);
    }

    private static int port(URI u) {
        if (u.getPort() != -1) {
            return u.getPort();
        }
        return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    /** A parsed action body: exactly one of keys, filter or workflowId. */
    record ActionRequest(List<String> keys, OutboxQuery filter, WorkflowId workflowId, boolean resetAttempt) {

        static ActionRequest parse(Map<?, ?> body, ConsoleHandlers console) {
            for (Object k : body.keySet()) {
                if (!ACTION_FIELDS.contains(String.valueOf(k))) {
                    throw ConsoleException.badRequest("unknown field '" + Filters.abbreviate(String.valueOf(k))
                            + "'; known: " + new TreeSet<>(ACTION_FIELDS));
                }
            }
            int targets = (body.containsKey("keys") ? 1 : 0)
                    + (body.containsKey("filter") ? 1 : 0)
                    + (body.containsKey("workflowId") ? 1 : 0);
            if (targets != 1) {
                throw ConsoleException.badRequest("give exactly one of keys, filter or workflowId");
            }
            boolean reset = bool(body.get("resetAttempt"), "resetAttempt");
            if (body.containsKey("keys")) {
                if (!(body.get("keys") instanceof List<?> list) || list.isEmpty()) {
                    throw ConsoleException.badRequest("keys must be a non-empty array of dispatch keys");
                }
                if (list.size() > console.options.maxBulk()) {
                    throw ConsoleException.badRequest(
                            "at most " + console.options.maxBulk() + " keys per action, got " + list.size());
                }
                List<String> keys = new ArrayList<>();
                for (Object k : list) {
                    if (!(k instanceof String s) || s.isEmpty() || s.length() > 1024) {
                        throw ConsoleException.badRequest("keys must be non-empty strings of at most 1024 characters");
                    }
                    if (!keys.contains(s)) {
                        keys.add(s);
                    }
                }
                return new ActionRequest(keys, null, null, reset);
            }
            if (body.containsKey("filter")) {
                if (!(body.get("filter") instanceof Map<?, ?> f)) {
                    throw ConsoleException.badRequest("filter must be an object of filter fields");
                }
                if (!bool(body.get("confirm"), "confirm")) {
                    throw ConsoleException.badRequest(
                            "an action by filter needs \"confirm\": true (count it first with " + "GET rows/count)");
                }
                Map<String, String> params = new LinkedHashMap<>();
                f.forEach((k, v) -> {
                    String name = String.valueOf(k);
                    if (PAGING.contains(name)) {
                        // refused, not ignored: a client that sends limit 10 would see up to maxBulk rows change
                        throw ConsoleException.badRequest("filter." + name + " pages a listing; an action by filter "
                                + "takes every matching row (at most " + console.options.maxBulk() + ")");
                    }
                    if (v != null && !(v instanceof String) && !(v instanceof Number)) {
                        throw ConsoleException.badRequest("filter." + Filters.abbreviate(name) + " must be a string");
                    }
                    params.put(name, v == null ? null : String.valueOf(v));
                });
                return new ActionRequest(null, console.query(params, PAGE, MAX_PAGE), null, reset);
            }
            if (!(body.get("workflowId") instanceof String w)) {
                throw ConsoleException.badRequest("workflowId must be a UUID string");
            }
            return new ActionRequest(null, null, Filters.workflowId(w), reset);
        }

        private static boolean bool(Object v, String name) {
            if (v == null) {
                return false;
            }
            if (v instanceof Boolean b) {
                return b;
            }
            throw ConsoleException.badRequest(name + " must be true or false");
        }
    }

    private Mono<Map<String, Object>> run(ConsoleAction action, ActionRequest a) {
        if (a.workflowId() != null) {
            return workflowAction(action, a);
        }
        Mono<List<OutboxRow>> targets;
        if (a.keys() != null) {
            targets = Flux.fromIterable(a.keys())
                    .concatMap(k -> store.listOutbox(OutboxQuery.all(1).withDispatchKey(k))
                            .next()
                            .map(r -> Map.entry(k, List.of(r)))
                            .defaultIfEmpty(Map.entry(k, List.of())))
                    .collectList()
                    .map(found -> {
                        List<String> unknown = new ArrayList<>();
                        List<OutboxRow> rows = new ArrayList<>();
                        for (Map.Entry<String, List<OutboxRow>> e : found) {
                            if (e.getValue().isEmpty()) {
                                unknown.add(e.getKey());
                            } else {
                                rows.add(e.getValue().get(0));
                            }
                        }
                        if (!unknown.isEmpty()) {
                            throw ConsoleException.notFound("unknown dispatch keys, nothing was changed: "
                                    + Filters.abbreviate(String.join(", ", unknown)));
                        }
                        return rows;
                    });
        } else {
            OutboxQuery q = a.filter();
            OutboxStatus required = switch (action) {
                case REDRIVE -> OutboxStatus.FAILED;
                case RELEASE -> OutboxStatus.CLAIMED;
                case CANCEL -> q.status();
            };
            if (action == ConsoleAction.CANCEL && (required == null || !required.isLive())) {
                throw ConsoleException.badRequest("cancel by filter needs status pending or claimed");
            }
            if (q.status() != null && q.status() != required) {
                throw ConsoleException.badRequest(action.token() + " by filter applies to " + required.token()
                        + " rows, the filter asks for " + q.status().token());
            }
            targets = collect(q.withStatus(required), options.maxBulk());
        }
        return targets.flatMap(rows -> apply(action, a.resetAttempt(), rows));
    }

    private Mono<Map<String, Object>> apply(ConsoleAction action, boolean reset, List<OutboxRow> rows) {
        Instant now = clock.instant();
        Flux<Map.Entry<String, Boolean>> results = switch (action) {
            case REDRIVE ->
                Flux.fromIterable(rows)
                        .flatMapSequential(
                                r -> store.redrive(r.dispatchKey(), reset).map(b -> Map.entry(r.dispatchKey(), b)), 16);
            case RELEASE ->
                Flux.fromIterable(rows)
                        .flatMapSequential(
                                r -> r.status() != OutboxStatus.CLAIMED
                                        ? Mono.just(Map.entry(r.dispatchKey(), false))
                                        : store.retry(r, r.attempt(), now)
                                                .thenReturn(Map.entry(r.dispatchKey(), true))
                                                .onErrorResume(
                                                        StaleClaimException.class,
                                                        e -> Mono.just(Map.entry(r.dispatchKey(), false))),
                                16);
            case CANCEL -> {
                List<String> live = rows.stream()
                        .filter(OutboxRow::isLive)
                        .map(OutboxRow::dispatchKey)
                        .toList();
                yield store.settleCancelled(live)
                        .thenMany(Flux.fromIterable(rows).map(r -> Map.entry(r.dispatchKey(), r.isLive())));
            }
        };
        return results.collectList().map(list -> {
            List<String> changed = new ArrayList<>();
            List<String> skipped = new ArrayList<>();
            for (Map.Entry<String, Boolean> e : list) {
                (e.getValue() ? changed : skipped).add(e.getKey());
            }
            log.info("console {}: {} rows changed, {} skipped", action.token(), changed.size(), skipped.size());
            return result(action, changed, skipped);
        });
    }

    private Mono<Map<String, Object>> workflowAction(ConsoleAction action, ActionRequest a) {
        WorkflowId id = a.workflowId();
        return store.readHead(id)
                .zipWith(store.listOutbox(OutboxQuery.all(1).withWorkflowId(id)).hasElements())
                .flatMap(t -> {
                    if (t.getT1() == 0 && !t.getT2()) {
                        return Mono.error(ConsoleException.notFound("no workflow " + id + " in this store"));
                    }
                    return switch (action) {
                        case REDRIVE ->
                            store.redriveWorkflow(id, a.resetAttempt()).map(keys -> result(action, keys, List.of()));
                        case CANCEL -> store.cancelWorkflowRows(id).map(keys -> result(action, keys, List.of()));
                        case RELEASE ->
                            store.listOutbox(OutboxQuery.all(OutboxQuery.MAX_LIMIT)
                                            .withWorkflowId(id)
                                            .withStatus(OutboxStatus.CLAIMED))
                                    .collectList()
                                    .flatMap(rows -> apply(action, false, rows));
                    };
                });
    }

    private static Map<String, Object> result(ConsoleAction action, List<String> changed, List<String> skipped) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("action", action.token());
        body.put("changed", changed.size());
        body.put("skipped", skipped.size());
        body.put("changedKeys", changed);
        body.put("skippedKeys", skipped);
        return body;
    }
}
