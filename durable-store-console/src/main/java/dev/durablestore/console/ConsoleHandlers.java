package dev.durablestore.console;

import static org.springframework.web.reactive.function.server.RequestPredicates.GET;
import static org.springframework.web.reactive.function.server.RequestPredicates.POST;

import dev.durablestore.api.ReactiveStore;
import java.net.URI;
import java.time.Clock;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * The console's routes at one path (see {@link DurableConsole}) and what every response shares: the
 * security headers, and the answer to a failed request ({@link ConsoleException#refusal} decides
 * which failures are the request's fault). The handlers are {@link ConsoleSession}'s (the session
 * and CSRF), {@link ConsoleViews}' and {@link SearchViews}' (what is read) and {@link ConsoleActions}' (what is changed).
 */
final class ConsoleHandlers {

    private static final Logger log = LoggerFactory.getLogger(ConsoleHandlers.class);
    private static final String STATIC = "dev/durablestore/console/static/";
    private static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    private final String base;
    private final ConsoleSession session;
    private final ConsoleViews views;
    private final SearchViews search;
    private final ConsoleActions actions;

    ConsoleHandlers(
            ReactiveStore store,
            ConsoleOptions options,
            ConsoleAuthorizer authorizer,
            TrafficMeter meter,
            Clock clock,
            String base) {
        this.base = base;
        this.session = new ConsoleSession(options, meter != null, base);
        this.views = new ConsoleViews(store, options, meter, clock);
        this.search = new SearchViews(store, clock, ConsoleViews::summary);
        this.actions = new ConsoleActions(store, options, authorizer, clock, session, views);
    }

    /** Ends the live streams (the rates), for a server shutting down; see {@link DurableConsole#close()}. */
    void close() {
        views.close();
    }

    RouterFunction<ServerResponse> routes() {
        String api = base + "/api";
        return RouterFunctions.route(
                        GET(base),
                        r -> ServerResponse.permanentRedirect(URI.create(base + "/"))
                                .build())
                .andRoute(GET(base + "/"), ConsoleHandlers::index)
                .and(RouterFunctions.resources(base + "/static/**", new ClassPathResource(STATIC)))
                .andRoute(GET(api + "/session"), session::session)
                .andRoute(GET(api + "/overview"), views::overview)
                .andRoute(GET(api + "/rates"), views::rates)
                .andRoute(GET(api + "/rows"), views::rows)
                .andRoute(GET(api + "/rows/count"), views::countRows)
                .andRoute(GET(api + "/workflows"), search::workflows)
                .andRoute(GET(api + "/timers"), search::timers)
                .andRoute(GET(api + "/workflows/{id}"), views::workflow)
                .andRoute(GET(api + "/workflows/{id}/history"), views::history)
                .andRoute(POST(api + "/actions/{action}"), actions::action)
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

    /**
     * @param body the JSON body
     * @return a 200 with the body; how every handler answers a request it served
     */
    static Mono<ServerResponse> ok(Object body) {
        return json(HttpStatus.OK, body);
    }

    private static Mono<ServerResponse> index(ServerRequest request) {
        return ServerResponse.ok()
                .contentType(MediaType.TEXT_HTML)
                .bodyValue(new ClassPathResource(STATIC + "index.html"));
    }
}
