package dev.durablestore.console;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * The page's session and the console's CSRF defence: {@code GET session} hands the page the
 * console's settings, the console's CSRF token (in a cookie and in the body, see {@link Csrf}) and
 * the host's own (see {@link HostCsrf}); {@link #checkCsrf} refuses an action that comes from
 * another origin or does not send the token back.
 */
final class ConsoleSession {

    private final ConsoleOptions options;
    private final boolean rates;
    private final String base;
    private final Csrf csrf = new Csrf();

    /**
     * @param options the console's options
     * @param rates whether the console shows live rates
     * @param base the path the console is mounted at (the cookie's path)
     */
    ConsoleSession(ConsoleOptions options, boolean rates, String base) {
        this.options = options;
        this.rates = rates;
        this.base = base;
    }

    /** {@code GET session}: the settings, and unless read-only the actions and the CSRF tokens. */
    Mono<ServerResponse> session(ServerRequest request) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("readOnly", options.readOnly());
        body.put("previews", options.previews());
        body.put("previewBytes", options.previewBytes());
        body.put("lease", options.lease().toString());
        body.put("leaseSeconds", options.lease().toSeconds());
        body.put("maxBulk", options.maxBulk());
        body.put("countCap", options.countCap());
        body.put("countTtlMillis", options.countTtl().toMillis());
        body.put("rates", rates);
        List<String> actions = new ArrayList<>();
        if (options.readOnly()) {
            body.put("actions", actions);
            return ConsoleHandlers.ok(body);
        }
        for (ConsoleAction a : ConsoleAction.values()) {
            actions.add(a.token());
        }
        body.put("actions", actions);
        String cookie = cookie(request);
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

    /**
     * Refuses (403 {@code csrf}) an action whose {@code Origin} header names another origin or does
     * not parse, or that does not send back, in the {@link Csrf#HEADER} header, the token of its
     * cookie.
     *
     * @param request the action's request
     */
    void checkCsrf(ServerRequest request) {
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
        if (!csrf.matches(cookie(request), request.headers().firstHeader(Csrf.HEADER))) {
            throw ConsoleException.forbidden(
                    "csrf",
                    "missing or wrong CSRF token: load " + base + "/api/session and send its csrfToken in the "
                            + Csrf.HEADER + " header");
        }
    }

    /** The value of the console's CSRF cookie, or null when the request has none. */
    private static String cookie(ServerRequest request) {
        HttpCookie cookie = request.cookies().getFirst(Csrf.COOKIE);
        return cookie == null ? null : cookie.getValue();
    }

    private static int port(URI u) {
        if (u.getPort() != -1) {
            return u.getPort();
        }
        return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }
}
