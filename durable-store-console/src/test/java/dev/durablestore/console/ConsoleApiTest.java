package dev.durablestore.console;

import static dev.durablestore.console.ConsoleFixture.TIMEOUT;
import static dev.durablestore.console.ConsoleFixture.WF;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Mono;

/** Every endpoint of the console through WebTestClient, against a real SQLite store. */
class ConsoleApiTest {

    private static final String BASE = "/ops/console";

    @TempDir
    Path dir;

    private ConsoleFixture fixture;

    @AfterEach
    void close() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private WebTestClient client(ConsoleOptions options, ConsoleAuthorizer authorizer, TrafficMeter meter) {
        fixture = new ConsoleFixture(dir, meter, false);
        DurableConsole console = DurableConsole.builder(fixture.store)
                .withOptions(options)
                .withAuthorizer(authorizer)
                .withMeter(meter)
                .withClock(fixture.clock)
                .build();
        return WebTestClient.bindToRouterFunction(console.router(BASE))
                .configureClient()
                .baseUrl("http://localhost")
                .responseTimeout(TIMEOUT)
                .build();
    }

    private WebTestClient readOnly() {
        return client(ConsoleOptions.defaults().withCountTtl(Duration.ZERO), null, null);
    }

    private WebTestClient actions(ConsoleAuthorizer authorizer) {
        return client(ConsoleOptions.defaults().withReadOnly(false).withCountTtl(Duration.ZERO), authorizer, null);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(WebTestClient.ResponseSpec spec) {
        return spec.expectBody(Map.class).returnResult().getResponseBody();
    }

    /** The session's CSRF token and its cookie. */
    private record Session(String token, String cookie) {}

    private static Session session(WebTestClient client) {
        EntityExchangeResult<Map> r = client.get()
                .uri(BASE + "/api/session")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult();
        ResponseCookie c = r.getResponseCookies().getFirst(Csrf.COOKIE);
        assertThat(c).isNotNull();
        assertThat(c.isHttpOnly()).isTrue();
        assertThat(c.getSameSite()).isEqualTo("Strict");
        return new Session((String) r.getResponseBody().get("csrfToken"), c.getValue());
    }

    private static WebTestClient.ResponseSpec act(WebTestClient client, Session s, String action, Object body) {
        return client.post()
                .uri(BASE + "/api/actions/" + action)
                .contentType(MediaType.APPLICATION_JSON)
                .cookie(Csrf.COOKIE, s.cookie())
                .header(Csrf.HEADER, s.token())
                .bodyValue(body)
                .exchange();
    }

    // ---------------------------------------------------------------- pages

    @Test
    void the_pages_come_from_the_jar_under_the_mount_path_with_security_headers() {
        WebTestClient c = readOnly();
        c.get()
                .uri(BASE)
                .exchange()
                .expectStatus()
                .isPermanentRedirect()
                .expectHeader()
                .location(BASE + "/");
        c.get()
                .uri(BASE + "/")
                .exchange()
                .expectStatus()
                .isOk()
                .expectHeader()
                .contentTypeCompatibleWith(MediaType.TEXT_HTML)
                .expectHeader()
                .valueMatches("Content-Security-Policy", ".*default-src 'self'.*")
                .expectHeader()
                .valueEquals("X-Frame-Options", "DENY")
                .expectBody(String.class)
                .value(html -> assertThat(html).contains("static/console.js"));
        c.get()
                .uri(BASE + "/static/console.js")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .value(js -> assertThat(js).contains("textContent"));
        c.get().uri(BASE + "/static/console.css").exchange().expectStatus().isOk();
        c.get()
                .uri(BASE + "/static/../ConsoleHandlers.class")
                .exchange()
                .expectStatus()
                .isNotFound();
        c.get().uri("/elsewhere").exchange().expectStatus().isNotFound();
    }

    @Test
    void a_read_only_session_offers_no_action_and_no_token() {
        Map<String, Object> s = json(readOnly()
                .get()
                .uri(BASE + "/api/session")
                .exchange()
                .expectStatus()
                .isOk()
                .expectHeader()
                .doesNotExist("Set-Cookie"));
        assertThat(s)
                .containsEntry("readOnly", true)
                .containsEntry("actions", List.of())
                .doesNotContainKey("csrfToken");
    }

    // ---------------------------------------------------------------- overview

    @Test
    @SuppressWarnings("unchecked")
    void the_overview_counts_each_route_by_status_as_the_store_holds_them() {
        Map<String, Object> o = json(readOnly()
                .get()
                .uri(BASE + "/api/overview")
                .exchange()
                .expectStatus()
                .isOk());
        List<Map<String, Object>> routes = (List<Map<String, Object>>) o.get("routes");
        assertThat(routes)
                .extracting(r -> r.get("namespace") + "/" + r.get("taskQueue"))
                .containsExactly("billing/payments", "orders/checkout", "shipping/labels");
        assertThat(routes.get(0))
                .containsEntry("failed", ConsoleFixture.FAILED_BULK)
                .containsEntry("pending", 0);
        assertThat(routes.get(1))
                .containsEntry("failed", 1)
                .containsEntry("pending", 1)
                .containsEntry("due", 0)
                .containsEntry("done", 1);
        assertThat(routes.get(2))
                .containsEntry("claimed", ConsoleFixture.STUCK + 1)
                .containsEntry("staleClaimed", ConsoleFixture.STUCK);
        assertThat((Map<String, Object>) o.get("totals")).containsEntry("failed", ConsoleFixture.FAILED_BULK + 1);
        assertThat(o).containsEntry("capped", List.of()).containsEntry("cap", 100_000);
    }

    @Test
    void the_overview_reports_a_capped_status() {
        WebTestClient c = client(ConsoleOptions.defaults().withCountCap(5), null, null);
        Map<String, Object> o = json(
                c.get().uri(BASE + "/api/overview").exchange().expectStatus().isOk());
        assertThat(o).containsEntry("capped", List.of("failed")).containsEntry("cap", 5);
    }

    @Test
    void the_overview_is_cached_for_its_ttl_then_counted_again() {
        WebTestClient c = client(ConsoleOptions.defaults().withCountTtl(Duration.ofMinutes(1)), null, null);
        String first =
                (String) json(c.get().uri(BASE + "/api/overview").exchange()).get("countedAt");
        fixture.store.fail(OutboxRow.dispatchKey(WF, 1)).block(TIMEOUT);
        assertThat(json(c.get().uri(BASE + "/api/overview").exchange())).containsEntry("countedAt", first);
        fixture.clock.advance(Duration.ofMinutes(2));
        // past the TTL the stale counts answer at once and a count runs behind them; fresh=true waits for it
        Map<String, Object> fresh =
                json(c.get().uri(BASE + "/api/overview?fresh=true").exchange());
        assertThat(fresh.get("countedAt")).isNotEqualTo(first);
    }

    @Test
    void rates_stream_as_server_sent_events_from_the_meter() {
        TrafficMeter meter = new TrafficMeter();
        WebTestClient c = client(ConsoleOptions.defaults(), null, meter);
        assertThat(meter.staged()).isGreaterThan(0);
        assertThat(meter.claimed()).isEqualTo(ConsoleFixture.STUCK + 1);
        List<ServerSentEvent<Map<String, Object>>> events = c.get()
                .uri(BASE + "/api/rates")
                .accept(MediaType.TEXT_EVENT_STREAM)
                .exchange()
                .expectStatus()
                .isOk()
                .returnResult(new ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>>() {})
                .getResponseBody()
                .take(2)
                .collectList()
                .block(TIMEOUT);
        assertThat(events).hasSize(2);
        assertThat(events.get(1).data()).containsEntry("available", true).containsKeys("staged", "claimed", "settled");
        assertThat(events.get(1).event()).isEqualTo("rates");
    }

    @Test
    void rates_without_a_meter_say_they_are_not_available() {
        List<ServerSentEvent<Map<String, Object>>> events = readOnly()
                .get()
                .uri(BASE + "/api/rates")
                .exchange()
                .returnResult(new ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>>() {})
                .getResponseBody()
                .collectList()
                .block(TIMEOUT);
        assertThat(events).singleElement().satisfies(e -> assertThat(e.data()).containsEntry("available", false));
    }

    // ---------------------------------------------------------------- rows

    @Test
    @SuppressWarnings("unchecked")
    void rows_are_listed_by_filter_and_paged() {
        WebTestClient c = readOnly();
        Map<String, Object> page = json(c.get()
                .uri(BASE + "/api/rows?status=failed&namespace=billing&limit=5")
                .exchange()
                .expectStatus()
                .isOk());
        List<Map<String, Object>> rows = (List<Map<String, Object>>) page.get("rows");
        assertThat(rows)
                .hasSize(5)
                .allSatisfy(r -> assertThat(r)
                        .containsEntry("status", "failed")
                        .containsEntry("namespace", "billing")
                        .containsKeys("input", "inputBytes", "dispatchKey"));
        String next = (String) page.get("next");
        assertThat(next).isEqualTo(rows.get(4).get("dispatchKey"));
        Map<String, Object> last = json(c.get()
                .uri(BASE + "/api/rows?status=failed&namespace=billing&limit=10&after=" + next)
                .exchange());
        assertThat((List<?>) last.get("rows")).hasSize(ConsoleFixture.FAILED_BULK - 5);
        assertThat(last.get("next")).isNull();
        assertThat((List<?>) json(c.get()
                                .uri(BASE + "/api/rows?status=failed&activityType=refund")
                                .exchange())
                        .get("rows"))
                .hasSize(ConsoleFixture.FAILED_BULK / 2);
        assertThat((List<?>) json(c.get()
                                .uri(BASE + "/api/rows?status=claimed&olderThan=lease")
                                .exchange())
                        .get("rows"))
                .hasSize(ConsoleFixture.STUCK);
        assertThat((List<?>) json(c.get()
                                .uri(BASE + "/api/rows?status=claimed&olderThan=1m")
                                .exchange())
                        .get("rows"))
                .hasSize(ConsoleFixture.STUCK);
        assertThat((List<?>)
                        json(c.get().uri(BASE + "/api/rows?workflowId=" + WF).exchange())
                                .get("rows"))
                .hasSize(3);
        assertThat(json(c.get()
                        .uri(BASE + "/api/rows/count?status=failed&namespace=billing")
                        .exchange()))
                .containsEntry("count", ConsoleFixture.FAILED_BULK)
                .containsEntry("capped", false);
    }

    @Test
    void previews_can_be_turned_off() {
        WebTestClient c = client(ConsoleOptions.defaults().withPreviews(false), null, null);
        Map<String, Object> page =
                json(c.get().uri(BASE + "/api/rows?workflowId=" + WF).exchange());
        assertThat((List<Map<String, Object>>) page.get("rows"))
                .allSatisfy(r -> assertThat(r).doesNotContainKey("input").containsKey("inputBytes"));
        Map<String, Object> h =
                json(c.get().uri(BASE + "/api/workflows/" + WF + "/history").exchange());
        assertThat((List<Map<String, Object>>) h.get("events"))
                .allSatisfy(e -> assertThat(e).doesNotContainKey("preview").containsKey("bytes"));
    }

    @Test
    void malformed_filters_are_refused_with_400_and_a_message() {
        WebTestClient c = readOnly();
        for (String q : List.of(
                "status=broken",
                "olderThan=yesterday",
                "olderThan=-5m",
                "limit=0",
                "limit=99999",
                "limit=ten",
                "workflowId=not-a-uuid",
                "colour=red",
                "status=failed&status=done")) {
            Map<String, Object> e = json(c.get()
                    .uri(BASE + "/api/rows?" + q)
                    .exchange()
                    .expectStatus()
                    .isBadRequest());
            assertThat(e).as(q).containsEntry("error", "bad-request").containsKey("message");
        }
        c.get()
                .uri(BASE + "/api/rows/count?status=nope")
                .exchange()
                .expectStatus()
                .isBadRequest();
    }

    // ---------------------------------------------------------------- workflow view

    @Test
    @SuppressWarnings("unchecked")
    void the_workflow_view_has_summary_run_chain_history_and_outbox_rows() {
        WebTestClient c = client(ConsoleOptions.defaults().withPreviewBytes(64), null, null);
        Map<String, Object> w = json(c.get()
                .uri(BASE + "/api/workflows/" + WF)
                .exchange()
                .expectStatus()
                .isOk());
        assertThat((Map<String, Object>) w.get("summary"))
                .containsEntry("workflowType", "checkout")
                .containsEntry("status", "RUNNING");
        assertThat((List<?>) w.get("runChain")).hasSize(1);
        assertThat(w).containsEntry("head", 2);
        assertThat((Map<String, Object>) w.get("outboxStates"))
                .containsEntry("failed", 1)
                .containsEntry("pending", 1)
                .containsEntry("done", 1);
        Map<String, Object> h =
                json(c.get().uri(BASE + "/api/workflows/" + WF + "/history").exchange());
        List<Map<String, Object>> events = (List<Map<String, Object>>) h.get("events");
        assertThat(events).extracting(e -> e.get("kind")).containsExactly("WorkflowStarted", "SignalReceived");
        // the signal's 5 kB payload is cut to the preview limit
        assertThat(events.get(1)).containsEntry("previewTruncated", true);
        assertThat(((String) events.get(1).get("preview")).length()).isLessThanOrEqualTo(64);
        assertThat((Integer) events.get(1).get("bytes")).isGreaterThan(5000);
        Map<String, Object> second = json(c.get()
                .uri(BASE + "/api/workflows/" + WF + "/history?from=2&limit=1")
                .exchange());
        assertThat((List<?>) second.get("events")).hasSize(1);
    }

    @Test
    void unknown_and_malformed_workflow_ids_are_404_and_400() {
        WebTestClient c = readOnly();
        String unknown = "99999999-9999-4999-8999-999999999999";
        assertThat(json(c.get()
                        .uri(BASE + "/api/workflows/" + unknown)
                        .exchange()
                        .expectStatus()
                        .isNotFound()))
                .containsEntry("error", "not-found");
        c.get()
                .uri(BASE + "/api/workflows/" + unknown + "/history")
                .exchange()
                .expectStatus()
                .isNotFound();
        c.get().uri(BASE + "/api/workflows/nope").exchange().expectStatus().isBadRequest();
        c.get()
                .uri(BASE + "/api/workflows/" + WF + "/history?from=0")
                .exchange()
                .expectStatus()
                .isBadRequest();
        c.get()
                .uri(BASE + "/api/workflows/" + WF + "/history?limit=5000")
                .exchange()
                .expectStatus()
                .isBadRequest();
    }

    // ---------------------------------------------------------------- actions refused

    @Test
    void a_read_only_console_accepts_no_action_and_changes_nothing() {
        WebTestClient c = readOnly();
        for (String action : List.of("redrive", "release", "cancel")) {
            Map<String, Object> e = json(c.post()
                    .uri(BASE + "/api/actions/" + action)
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("keys", fixture.failedKeys))
                    .exchange()
                    .expectStatus()
                    .isForbidden());
            assertThat(e).containsEntry("error", "read-only");
        }
        assertThat(fixture.failedKeys)
                .allSatisfy(k -> assertThat(fixture.status(k)).isEqualTo(OutboxStatus.FAILED));
        assertThat(fixture.stuckKeys)
                .allSatisfy(k -> assertThat(fixture.status(k)).isEqualTo(OutboxStatus.CLAIMED));
    }

    @Test
    void an_action_needs_a_console_without_an_authorizer_to_be_refused_at_build() {
        fixture = new ConsoleFixture(dir, null, false);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DurableConsole.builder(fixture.store)
                        .withOptions(ConsoleOptions.defaults().withReadOnly(false))
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ConsoleAuthorizer");
    }

    @Test
    void actions_without_the_csrf_token_or_from_another_origin_are_refused() {
        WebTestClient c = actions((a, r) -> Mono.just(true));
        Session s = session(c);
        Map<String, Object> body = Map.of("keys", List.of(fixture.failedKeys.get(0)));
        // no token at all
        c.post()
                .uri(BASE + "/api/actions/redrive")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange()
                .expectStatus()
                .isForbidden();
        // the header without the cookie, and a forged pair not signed by this console
        c.post()
                .uri(BASE + "/api/actions/redrive")
                .contentType(MediaType.APPLICATION_JSON)
                .header(Csrf.HEADER, s.token())
                .bodyValue(body)
                .exchange()
                .expectStatus()
                .isForbidden();
        c.post()
                .uri(BASE + "/api/actions/redrive")
                .contentType(MediaType.APPLICATION_JSON)
                .cookie(Csrf.COOKIE, "abc.def")
                .header(Csrf.HEADER, "abc.def")
                .bodyValue(body)
                .exchange()
                .expectStatus()
                .isForbidden();
        // a valid pair from another origin
        c.post()
                .uri(BASE + "/api/actions/redrive")
                .contentType(MediaType.APPLICATION_JSON)
                .cookie(Csrf.COOKIE, s.cookie())
                .header(Csrf.HEADER, s.token())
                .header("Origin", "http://evil.example")
                .bodyValue(body)
                .exchange()
                .expectStatus()
                .isForbidden();
        assertThat(fixture.status(fixture.failedKeys.get(0))).isEqualTo(OutboxStatus.FAILED);
    }

    @Test
    void the_authorizer_decides_per_action_and_user() {
        AtomicReference<String> asked = new AtomicReference<>();
        WebTestClient c = actions((action, request) -> {
            asked.set(action.token() + ":" + request.headers().firstHeader("X-User"));
            return Mono.just(action == ConsoleAction.REDRIVE
                    && "alice".equals(request.headers().firstHeader("X-User")));
        });
        Session s = session(c);
        String key = fixture.failedKeys.get(0);
        c.post()
                .uri(BASE + "/api/actions/redrive")
                .contentType(MediaType.APPLICATION_JSON)
                .cookie(Csrf.COOKIE, s.cookie())
                .header(Csrf.HEADER, s.token())
                .header("X-User", "bob")
                .bodyValue(Map.of("keys", List.of(key)))
                .exchange()
                .expectStatus()
                .isForbidden();
        assertThat(asked.get()).isEqualTo("redrive:bob");
        assertThat(fixture.status(key)).isEqualTo(OutboxStatus.FAILED);
        c.post()
                .uri(BASE + "/api/actions/cancel")
                .contentType(MediaType.APPLICATION_JSON)
                .cookie(Csrf.COOKIE, s.cookie())
                .header(Csrf.HEADER, s.token())
                .header("X-User", "alice")
                .bodyValue(Map.of("keys", List.of(fixture.stuckKeys.get(0))))
                .exchange()
                .expectStatus()
                .isForbidden();
        assertThat(fixture.status(fixture.stuckKeys.get(0))).isEqualTo(OutboxStatus.CLAIMED);
        c.post()
                .uri(BASE + "/api/actions/redrive")
                .contentType(MediaType.APPLICATION_JSON)
                .cookie(Csrf.COOKIE, s.cookie())
                .header(Csrf.HEADER, s.token())
                .header("X-User", "alice")
                .bodyValue(Map.of("keys", List.of(key)))
                .exchange()
                .expectStatus()
                .isOk();
        assertThat(fixture.status(key)).isEqualTo(OutboxStatus.PENDING);
    }

    @Test
    void bad_action_input_is_refused_and_changes_nothing() {
        WebTestClient c = actions((a, r) -> Mono.just(true));
        Session s = session(c);
        String known = fixture.failedKeys.get(0);
        // unknown keys: 404 naming them, and the known key in the same request is left alone
        Map<String, Object> e = json(act(c, s, "redrive", Map.of("keys", List.of(known, "no-such-key")))
                .expectStatus()
                .isNotFound());
        assertThat((String) e.get("message")).contains("no-such-key");
        act(c, s, "bogus", Map.of("keys", List.of(known))).expectStatus().isNotFound();
        act(c, s, "redrive", Map.of("keys", List.of())).expectStatus().isBadRequest();
        act(c, s, "redrive", Map.of("keys", "x")).expectStatus().isBadRequest();
        act(c, s, "redrive", Map.of("keys", List.of(known), "colour", "red"))
                .expectStatus()
                .isBadRequest();
        act(c, s, "redrive", Map.of("keys", List.of(known), "workflowId", WF.toString()))
                .expectStatus()
                .isBadRequest();
        act(c, s, "redrive", Map.of("filter", Map.of("namespace", "billing")))
                .expectStatus()
                .isBadRequest(); // no confirm
        act(c, s, "redrive", Map.of("filter", Map.of("olderThan", "soon"), "confirm", true))
                .expectStatus()
                .isBadRequest();
        act(c, s, "redrive", Map.of("filter", Map.of("status", "claimed"), "confirm", true))
                .expectStatus()
                .isBadRequest();
        act(c, s, "cancel", Map.of("filter", Map.of("namespace", "billing"), "confirm", true))
                .expectStatus()
                .isBadRequest();
        act(c, s, "redrive", Map.of("workflowId", "nope")).expectStatus().isBadRequest();
        act(c, s, "redrive", Map.of("workflowId", "99999999-9999-4999-8999-999999999999"))
                .expectStatus()
                .isNotFound();
        c.post()
                .uri(BASE + "/api/actions/redrive")
                .contentType(MediaType.APPLICATION_JSON)
                .cookie(Csrf.COOKIE, s.cookie())
                .header(Csrf.HEADER, s.token())
                .bodyValue("{not json")
                .exchange()
                .expectStatus()
                .isBadRequest();
        c.post()
                .uri(BASE + "/api/actions/redrive")
                .contentType(MediaType.APPLICATION_JSON)
                .cookie(Csrf.COOKIE, s.cookie())
                .header(Csrf.HEADER, s.token())
                .bodyValue("[1,2]")
                .exchange()
                .expectStatus()
                .isBadRequest();
        assertThat(fixture.failedKeys)
                .allSatisfy(k -> assertThat(fixture.status(k)).isEqualTo(OutboxStatus.FAILED));
        assertThat(fixture.stuckKeys)
                .allSatisfy(k -> assertThat(fixture.status(k)).isEqualTo(OutboxStatus.CLAIMED));
    }

    // ---------------------------------------------------------------- actions taken

    @Test
    void redrive_by_keys_and_by_filter_moves_dead_letters_to_pending() {
        WebTestClient c = actions((a, r) -> Mono.just(true));
        Session s = session(c);
        Map<String, Object> one = json(act(c, s, "redrive", Map.of("keys", List.of(fixture.failedKeys.get(0))))
                .expectStatus()
                .isOk());
        assertThat(one).containsEntry("changed", 1).containsEntry("skipped", 0);
        // by filter: the refunds of billing, counted first
        assertThat(json(c.get()
                        .uri(BASE + "/api/rows/count?status=failed&namespace=billing&activityType=refund")
                        .exchange()))
                .containsEntry("count", ConsoleFixture.FAILED_BULK / 2);
        Map<String, Object> bulk = json(act(
                        c,
                        s,
                        "redrive",
                        Map.of(
                                "filter",
                                Map.of("namespace", "billing", "activityType", "refund"),
                                "confirm",
                                true,
                                "resetAttempt",
                                true))
                .expectStatus()
                .isOk());
        assertThat(bulk).containsEntry("changed", ConsoleFixture.FAILED_BULK / 2);
        for (int i = 0; i < ConsoleFixture.FAILED_BULK; i++) {
            OutboxStatus expected = i == 0 || i % 2 == 1 ? OutboxStatus.PENDING : OutboxStatus.FAILED;
            assertThat(fixture.status(fixture.failedKeys.get(i)))
                    .as("row %d", i)
                    .isEqualTo(expected);
        }
        // a row that is not failed any more is skipped, not an error
        assertThat(json(act(c, s, "redrive", Map.of("keys", List.of(fixture.failedKeys.get(0))))
                        .expectStatus()
                        .isOk()))
                .containsEntry("changed", 0)
                .containsEntry("skipped", 1);
    }

    @Test
    void release_and_cancel_stuck_claims() {
        WebTestClient c = actions((a, r) -> Mono.just(true));
        Session s = session(c);
        Map<String, Object> released = json(act(c, s, "release", Map.of("keys", List.of(fixture.stuckKeys.get(0))))
                .expectStatus()
                .isOk());
        assertThat(released).containsEntry("changed", 1);
        assertThat(fixture.status(fixture.stuckKeys.get(0))).isEqualTo(OutboxStatus.PENDING);
        // the other stuck claims by filter (the lease); the fresh claim is not touched
        Map<String, Object> cancelled = json(act(
                        c,
                        s,
                        "cancel",
                        Map.of("filter", Map.of("status", "claimed", "olderThan", "lease"), "confirm", true))
                .expectStatus()
                .isOk());
        assertThat(cancelled).containsEntry("changed", ConsoleFixture.STUCK - 1);
        assertThat(fixture.status(fixture.stuckKeys.get(1))).isEqualTo(OutboxStatus.CANCELLED);
        assertThat(fixture.status("44444444-4444-4444-8444-000000000000:0")).isEqualTo(OutboxStatus.CLAIMED);
        // release by filter finds nothing stuck any more
        assertThat(json(act(c, s, "release", Map.of("filter", Map.of("olderThan", "lease"), "confirm", true))
                        .expectStatus()
                        .isOk()))
                .containsEntry("changed", 0);
    }

    @Test
    void workflow_actions_redrive_and_cancel_its_rows() {
        WebTestClient c = actions((a, r) -> Mono.just(true));
        Session s = session(c);
        assertThat(json(act(c, s, "redrive", Map.of("workflowId", WF.toString()))
                        .expectStatus()
                        .isOk()))
                .containsEntry("changed", 1);
        assertThat(fixture.status(OutboxRow.dispatchKey(WF, 0))).isEqualTo(OutboxStatus.PENDING);
        assertThat(json(act(c, s, "cancel", Map.of("workflowId", WF.toString()))
                        .expectStatus()
                        .isOk()))
                .containsEntry("changed", 2);
        assertThat(fixture.status(OutboxRow.dispatchKey(WF, 1))).isEqualTo(OutboxStatus.CANCELLED);
        assertThat(fixture.status(OutboxRow.dispatchKey(WF, 2))).isEqualTo(OutboxStatus.DONE);
    }
}
