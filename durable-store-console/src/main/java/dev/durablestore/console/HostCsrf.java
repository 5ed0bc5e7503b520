package dev.durablestore.console;

import java.util.Map;
import org.springframework.security.web.server.csrf.CsrfToken;
import org.springframework.util.ClassUtils;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The host's own CSRF token, for a host that runs Spring Security's {@code CsrfWebFilter} (on by
 * default in a WebFlux application with Spring Security): the filter puts the token of the request
 * in the exchange attribute {@code CsrfToken}, already in the form the host's request handler
 * expects back (masked by the default {@code XorServerCsrfTokenRequestAttributeHandler}, plain with
 * {@code ServerCsrfTokenRequestAttributeHandler}), whichever repository keeps it (the WebSession by
 * default, or a cookie). {@code GET session} hands it to the page, which sends it back in the header
 * the token names with every action, beside the console's own token. Subscribing to it also saves
 * a new token, as rendering a form would. Without Spring Security on the class path, there is none.
 */
final class HostCsrf {

    private static final boolean SPRING_SECURITY = ClassUtils.isPresent(
            "org.springframework.security.web.server.csrf.CsrfToken", HostCsrf.class.getClassLoader());

    private HostCsrf() {}

    /**
     * @param exchange the request
     * @return {@code headerName} and {@code token} of the host's CSRF token; empty when it has none
     */
    static Mono<Map<String, String>> of(ServerWebExchange exchange) {
        return SPRING_SECURITY ? SpringSecurity.token(exchange) : Mono.empty();
    }

    /** Loaded only when Spring Security is present. */
    private static final class SpringSecurity {

        static Mono<Map<String, String>> token(ServerWebExchange exchange) {
            Object attribute = exchange.getAttribute(CsrfToken.class.getName());
            Mono<?> token = attribute instanceof Mono<?> m ? m : Mono.justOrEmpty(attribute);
            return token.ofType(CsrfToken.class)
                    .map(t -> Map.of(
                            "headerName",
                            t.getHeaderName(),
                            "parameterName",
                            t.getParameterName(),
                            "token",
                            t.getToken()));
        }
    }
}
