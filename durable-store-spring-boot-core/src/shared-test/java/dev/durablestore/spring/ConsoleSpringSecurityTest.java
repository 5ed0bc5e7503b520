package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.console.ConsoleAuthorizer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.csrf.CookieServerCsrfTokenRepository;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

/**
 * The console with actions on, mounted by the starter in a WebFlux application that runs Spring
 * Security with its CSRF protection as it comes (the token in the WebSession, masked per request):
 * an action needs the host's CSRF token, which the console's {@code GET session} hands to the page
 * and the page sends back in the header the token names, as well as the console's own token; and
 * then the host's {@link ConsoleAuthorizer} decides per action and user. A real server on a random
 * port; every request is sent the way the console's page sends it.
 */
@SpringBootTest(
        classes = ConsoleSpringSecurityTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "durablestore.backend=sqlite",
            "durablestore.console.enabled=true",
            "durablestore.console.path=/ops/console",
            "durablestore.console.read-only=false",
            // one file per context (the subclass runs another), bound once at start-up
            "durablestore.sqlite.path=${java.io.tmpdir}/durable-store-console-security-${random.uuid}.db"
        })
class ConsoleSpringSecurityTest {

    static final String OPERATOR = "olga";
    static final String VIEWER = "victor";
    static final String PASSWORD = "secret";
    private static final String API = "/ops/console/api/";
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    /** A host application: Spring Security with HTTP Basic, CSRF on; operators may act, viewers only look. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        SecurityWebFilterChain security(ServerHttpSecurity http, @Value("${test.csrf:session}") String csrf) {
            if (csrf.equals("cookie")) {
                // the single-page-application setup: the token in a cookie JavaScript may read
                http.csrf(c -> c.csrfTokenRepository(CookieServerCsrfTokenRepository.withHttpOnlyFalse()));
            }
            return http.authorizeExchange(a -> a.anyExchange().authenticated())
                    .httpBasic(Customizer.withDefaults())
                    .build();
        }

        @Bean
        MapReactiveUserDetailsService users() {
            return new MapReactiveUserDetailsService(
                    User.withUsername(OPERATOR)
                            .password("{noop}" + PASSWORD)
                            .roles("OPERATOR")
                            .build(),
                    User.withUsername(VIEWER)
                            .password("{noop}" + PASSWORD)
                            .roles("VIEWER")
                            .build());
        }

        /** The authorizer of docs/console.md: only operators act. */
        @Bean
        ConsoleAuthorizer consoleAuthorizer() {
            return (action, request) -> request.principal()
                    .map(p -> p instanceof Authentication a
                            && a.getAuthorities().stream()
                                    .anyMatch(g -> g.getAuthority().equals("ROLE_OPERATOR")))
                    .defaultIfEmpty(false);
        }
    }

    /** The random port's server, reached as a browser would (built here: Boot 4 moved its test client support). */
    WebTestClient client;

    @Value("${local.server.port}")
    int port;

    @BeforeEach
    void connect() {
        client = WebTestClient.bindToServer()
                .baseUrl("http://localhost:" + port)
                .responseTimeout(TIMEOUT)
                .build();
    }

    @Autowired
    ReactiveStore store;

    /** What the page holds after {@code GET session}: both tokens and the cookies the browser keeps. */
    record Page(
            String user, String consoleToken, Map<String, String> hostCsrf, MultiValueMap<String, String> cookies) {}

    private Page open(String user) {
        EntityExchangeResult<Map> r = client.get()
                .uri(API + "session")
                .headers(h -> h.setBasicAuth(user, PASSWORD))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult();
        MultiValueMap<String, String> cookies = new LinkedMultiValueMap<>();
        for (List<ResponseCookie> named : r.getResponseCookies().values()) {
            for (ResponseCookie c : named) {
                cookies.add(c.getName(), c.getValue());
            }
        }
        @SuppressWarnings("unchecked")
        Map<String, String> host = (Map<String, String>) r.getResponseBody().get("hostCsrf");
        return new Page(user, (String) r.getResponseBody().get("csrfToken"), host, cookies);
    }

    /** An action as console.js posts it: its own token, the host's in the header it names, the cookies. */
    private WebTestClient.ResponseSpec act(Page page, boolean withHostToken, String action, Object body) {
        return client.post()
                .uri(API + "actions/" + action)
                .contentType(MediaType.APPLICATION_JSON)
                .accept(MediaType.APPLICATION_JSON)
                .headers(h -> {
                    h.setBasicAuth(page.user(), PASSWORD);
                    h.set("X-Console-CSRF", page.consoleToken());
                    if (withHostToken) {
                        h.set(page.hostCsrf().get("headerName"), page.hostCsrf().get("token"));
                    }
                })
                .cookies(c -> c.addAll(page.cookies()))
                .bodyValue(body)
                .exchange();
    }

    /** @return the header Spring Security reads its token from in this setup */
    String hostCsrfHeader() {
        return "X-CSRF-TOKEN";
    }

    private String deadLetter() {
        OutboxRow row = StarterFixtures.rows("charge-card", 1).get(0);
        store.appendOutboxBatch(List.of(row))
                .then(store.settleKeys(List.of(row.dispatchKey()), Settlement.fail()))
                .block(TIMEOUT);
        assertThat(status(row.dispatchKey())).isEqualTo(OutboxStatus.FAILED);
        return row.dispatchKey();
    }

    private OutboxStatus status(String key) {
        return store.rowState(key).block(TIMEOUT).status();
    }

    @Test
    void the_session_hands_the_page_the_hosts_csrf_token() {
        // given an operator; when the page loads its session, then it has both tokens
        Page page = open(OPERATOR);
        assertThat(page.consoleToken()).isNotBlank();
        assertThat(page.hostCsrf())
                .containsEntry("headerName", hostCsrfHeader())
                .containsKey("token");
        assertThat(page.hostCsrf().get("token")).isNotBlank();
    }

    @Test
    void an_action_without_the_hosts_csrf_token_is_refused_and_changes_nothing() {
        // given a dead letter and an operator's page
        String key = deadLetter();
        Page page = open(OPERATOR);
        // when the redrive carries only the console's token, then Spring Security refuses it
        act(page, false, "redrive", Map.of("keys", List.of(key))).expectStatus().isForbidden();
        // when it carries no token at all, the same
        client.post()
                .uri(API + "actions/redrive")
                .contentType(MediaType.APPLICATION_JSON)
                .headers(h -> h.setBasicAuth(OPERATOR, PASSWORD))
                .bodyValue(Map.of("keys", List.of(key)))
                .exchange()
                .expectStatus()
                .isForbidden();
        // then the row is still a dead letter
        assertThat(status(key)).isEqualTo(OutboxStatus.FAILED);
    }

    @Test
    void an_action_with_the_tokens_the_page_sends_succeeds_for_an_operator() {
        // given a dead letter and an operator's page
        String key = deadLetter();
        Page page = open(OPERATOR);
        // when the page redrives it with both tokens, then it is redriven
        act(page, true, "redrive", Map.of("keys", List.of(key)))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.changed")
                .isEqualTo(1)
                .jsonPath("$.changedKeys[0]")
                .isEqualTo(key);
        assertThat(status(key)).isEqualTo(OutboxStatus.PENDING);
    }

    @Test
    void a_user_the_hosts_authorizer_denies_is_refused_even_with_the_tokens() {
        // given a dead letter and a viewer's page, with valid tokens
        String key = deadLetter();
        Page page = open(VIEWER);
        // when the viewer redrives it, then the authorizer refuses, and nothing changes
        act(page, true, "redrive", Map.of("keys", List.of(key)))
                .expectStatus()
                .isForbidden()
                .expectBody()
                .jsonPath("$.error")
                .isEqualTo("not-allowed");
        assertThat(status(key)).isEqualTo(OutboxStatus.FAILED);
    }

    @Test
    void without_a_login_the_console_is_not_served() {
        // given no credentials; when the session is asked for, then the host's login stops it
        client.get().uri(API + "session").exchange().expectStatus().isUnauthorized();
        client.get().uri("/ops/console/").exchange().expectStatus().isUnauthorized();
    }
}
