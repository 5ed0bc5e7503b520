package dev.durablestore.console;

import org.springframework.web.reactive.function.server.ServerRequest;
import reactor.core.publisher.Mono;

/**
 * The host's decision on every console action, per action and per user: the console calls it before
 * it changes anything, after its own checks (actions enabled, CSRF token, input). Read the user from
 * the request, e.g. {@code request.principal()} under Spring Security, or any header or session the
 * host trusts.
 *
 * <pre>{@code
 * ConsoleAuthorizer authorizer = (action, request) -> request.principal()
 *         .map(user -> user instanceof Authentication a && a.getAuthorities().stream()
 *                 .anyMatch(g -> g.getAuthority().equals("ROLE_OPERATOR")))
 *         .defaultIfEmpty(false);
 * }</pre>
 */
@FunctionalInterface
public interface ConsoleAuthorizer {

    /** Refuses every action. */
    ConsoleAuthorizer DENY_ALL = (action, request) -> Mono.just(false);

    /**
     * @param action the action asked for
     * @param request the HTTP request asking (its principal, headers, session)
     * @return true to allow it; false or an error refuses it with 403 and changes nothing
     */
    Mono<Boolean> authorize(ConsoleAction action, ServerRequest request);
}
