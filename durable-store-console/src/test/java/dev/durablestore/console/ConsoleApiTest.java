package dev.durablestore.console;

import static dev.durablestore.console.ConsoleFixture.TIMEOUT;
import static dev.durablestore.console.ConsoleFixture.WF;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.http.HttpStatus.BAD_REQUEST;
import static org.springframework.http.HttpStatus.FORBIDDEN;
import static org.springframework.http.HttpStatus.PAYLOAD_TOO_LARGE;
import static org.springframework.http.HttpStatus.UNSUPPORTED_MEDIA_TYPE;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.RetentionPolicy;
import dev.durablestore.api.Settlement;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.BodyInserters;
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

    /** Asserts that the fixture's dead letters are still failed and its stuck claims still claimed. */
    private void nothingChanged() {
        assertThat(fixture.failedKeys)
                .allSatisfy(k -> assertThat(fixture.status(k)).isEqualTo(OutboxStatus.FAILED));
        assertThat(fixture.stuckKeys)
                .allSatisfy(k -> assertThat(fixture.status(k)).isEqualTo(OutboxStatus.CLAIMED));
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
    void the_overview_shows_each_routes_oldest_due_row_and_whether_a_claimer_was_seen_within_the_lease() {
        WebTestClient c = readOnly();
        // given shipping/labels claimed a moment ago, billing/payments settled 10 min ago (past the 5-min lease)
        Map<String, Map<String, Object>> routes = routes(c);
        assertThat(routes.get("shipping/labels")).containsEntry("claimerSeen", true);
        assertThat(((Number) routes.get("shipping/labels").get("lastClaimAgeMillis")).longValue())
                .isLessThan(Duration.ofMinutes(1).toMillis());
        assertThat(routes.get("billing/payments"))
                .containsEntry("claimerSeen", false)
                .containsEntry("lastClaimAgeMillis", null)
                .containsEntry("oldestDueAgeMillis", null);
        assertThat(((Number) routes.get("billing/payments").get("lastSettleAgeMillis")).longValue())
                .isGreaterThanOrEqualTo(Duration.ofMinutes(10).toMillis());
        // when an hour passes: orders/checkout's row due at t0 + 1 h has waited 10 min, and no route has
        // seen a claimer within the lease
        fixture.clock.advance(Duration.ofHours(1));
        routes = routes(c);
        assertThat(((Number) routes.get("orders/checkout").get("oldestDueAgeMillis")).longValue())
                .isBetween(
                        Duration.ofMinutes(10).toMillis(),
                        Duration.ofMinutes(11).toMillis());
        assertThat(routes.values()).allSatisfy(r -> assertThat(r).containsEntry("claimerSeen", false));
    }

    /** @return the overview's routes by namespace/task queue, counted now */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> routes(WebTestClient c) {
        Map<String, Map<String, Object>> byRoute = new LinkedHashMap<>();
        for (Map<String, Object> r : (List<Map<String, Object>>)
                json(c.get().uri(BASE + "/api/overview?fresh=true").exchange()).get("routes")) {
            byRoute.put(r.get("namespace") + "/" + r.get("taskQueue"), r);
        }
        return byRoute;
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
        fixture.store
                .settleKeys(List.of(OutboxRow.dispatchKey(WF, 1)), Settlement.fail())
                .block(TIMEOUT);
        assertThat(json(c.get().uri(BASE + "/api/overview").exchange())).containsEntry("countedAt", first);
        fixture.clock.advance(Duration.ofMinutes(2));
        // past the TTL the stale counts answer at once and a count runs behind them; fresh=true waits for it
        Map<String, Object> fresh =
                json(c.get().uri(BASE + "/api/overview?fresh=true").exchange());
        assertThat(fresh.get("countedAt")).isNotEqualTo(first);
    }

    @Test
    void without_a_retention_policy_the_overview_says_retention_is_off() {
        assertThat(retention(readOnly())).isEqualTo(Map.of("on", false));
    }

    @Test
    void the_overview_shows_the_retention_backlog_of_the_policy_it_was_given() {
        WebTestClient c = client(
                ConsoleOptions.defaults()
                        .withCountTtl(Duration.ZERO)
                        .withRetention(RetentionPolicy.closedFor(Duration.ofDays(1))),
                null,
                null);
        // given REFUND closed 1 h and EXPIRED 30 min before the seed: both within a day's retention
        assertThat(retention(c))
                .containsEntry("on", true)
                .containsEntry("overdue", 0)
                .containsEntry("heldByLiveRows", 0)
                .containsEntry("oldestAgeMillis", 0);
        // when two days pass and EXPIRED has a pending row again
        fixture.clock.advance(Duration.ofDays(2));
        fixture.store
                .appendOutboxBatch(List.of(ConsoleFixture.row(
                        ConsoleFixture.EXPIRED, 0, "orders", "checkout", "refund", fixture.clock.instant())))
                .block(TIMEOUT);
        Instant before = fixture.clock.instant();
        Map<String, Object> backlog = retention(c);
        Instant after = fixture.clock.instant();
        // then both are overdue, EXPIRED held by its live row, and the oldest is REFUND's close
        assertThat(backlog)
                .containsEntry("on", true)
                .containsEntry("overdue", 2)
                .containsEntry("heldByLiveRows", 1);
        Instant refundClosed = fixture.t0.minus(Duration.ofHours(1));
        assertThat(((Number) backlog.get("oldestAgeMillis")).longValue())
                .isBetween(
                        Duration.between(refundClosed, before).toMillis(),
                        Duration.between(refundClosed, after).toMillis());
    }

    /** @return the overview's retention backlog, read now */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> retention(WebTestClient c) {
        return (Map<String, Object>) json(c.get()
                        .uri(BASE + "/api/overview?fresh=true")
                        .exchange()
                        .expectStatus()
                        .isOk())
                .get("retention");
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
    @SuppressWarnings("unchecked")
    void rows_carry_their_failures_oldest_first_and_attempts_numbered_from_1() {
        WebTestClient c = readOnly();
        // a row dead-lettered on its second attempt, after a retried first one (O66, O67)
        List<Map<String, Object>> wf = (List<Map<String, Object>>)
                json(c.get().uri(BASE + "/api/rows?workflowId=" + WF).exchange())
                        .get("rows");
        Map<String, Object> failed = wf.stream()
                .filter(r -> r.get("dispatchKey").equals(OutboxRow.dispatchKey(WF, 0)))
                .findFirst()
                .orElseThrow();
        assertThat(failed).containsEntry("status", "failed").containsEntry("attempt", 2);
        List<Map<String, Object>> failures = (List<Map<String, Object>>) failed.get("failures");
        assertThat(failures).extracting(f -> f.get("attempt")).containsExactly(1, 2);
        assertThat(failures.get(0))
                .containsEntry("type", ConsoleFixture.RETRIED.type())
                .containsEntry("message", ConsoleFixture.RETRIED.message())
                .containsEntry("trace", ConsoleFixture.RETRIED.trace())
                .containsKey("failedAt");
        // texts are returned as stored, markup included: the page writes them as text
        assertThat(failures.get(1))
                .containsEntry("type", ConsoleFixture.HOSTILE.type())
                .containsEntry("message", ConsoleFixture.HOSTILE.message());
        // a row that never failed has none, and the pending row is due for its first attempt
        assertThat(wf)
                .filteredOn(r -> r.get("status").equals("pending"))
                .singleElement()
                .satisfies(r -> {
                    assertThat(r).containsEntry("attempt", 1);
                    assertThat((List<?>) r.get("failures")).isEmpty();
                });
        // dead letters failed on attempt 1, stuck claims are on attempt 2 after a failed first one
        List<Map<String, Object>> dead = (List<Map<String, Object>>) json(c.get()
                        .uri(BASE + "/api/rows?status=failed&namespace=billing")
                        .exchange())
                .get("rows");
        assertThat(dead).hasSize(ConsoleFixture.FAILED_BULK).allSatisfy(r -> {
            assertThat(r).containsEntry("attempt", 1);
            assertThat((List<Map<String, Object>>) r.get("failures"))
                    .singleElement()
                    .satisfies(f -> assertThat(f)
                            .containsEntry("attempt", 1)
                            .containsEntry("type", "com.example.PaymentDeclined")
                            .containsEntry("message", "card declined"));
        });
        List<Map<String, Object>> stuck = (List<Map<String, Object>>) json(c.get()
                        .uri(BASE + "/api/rows?status=claimed&olderThan=lease")
                        .exchange())
                .get("rows");
        assertThat(stuck).hasSize(ConsoleFixture.STUCK).allSatisfy(r -> {
            assertThat(r).containsEntry("attempt", 2);
            assertThat((List<Map<String, Object>>) r.get("failures"))
                    .singleElement()
                    .satisfies(f -> assertThat(f)
                            .containsEntry("attempt", 1)
                            .containsEntry("message", "label printer timed out"));
        });
        // and the workflow view's rows carry the same history
        List<Map<String, Object>> outbox = (List<Map<String, Object>>)
                json(c.get().uri(BASE + "/api/workflows/" + WF).exchange()).get("outbox");
        assertThat(outbox)
                .filteredOn(r -> r.get("status").equals("failed"))
                .singleElement()
                .satisfies(r -> assertThat(r.get("failures")).isEqualTo(failed.get("failures")));
    }

    @Test
    void previews_can_be_turned_off() {
        WebTestClient c = client(ConsoleOptions.defaults().withPreviews(false), null, null);
        Map<String, Object> page =
                json(c.get().uri(BASE + "/api/rows?workflowId=" + WF).exchange());
        assertThat((List<Map<String, Object>>) page.get("rows"))
                .allSatisfy(r ->
                        assertThat(r).doesNotContainKeys("input", "inputFormat").containsKey("inputBytes"));
        // an exception's message and trace may quote data: without previews a failure keeps its
        // attempt, time and type only
        List<Map<String, Object>> failures = ((List<Map<String, Object>>) page.get("rows"))
                .stream()
                        .flatMap(r -> ((List<Map<String, Object>>) r.get("failures")).stream())
                        .toList();
        assertThat(failures)
                .hasSize(2)
                .allSatisfy(f -> assertThat(f)
                        .containsKeys("attempt", "failedAt", "type")
                        .doesNotContainKeys("message", "trace"));
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

    // ---------------------------------------------------------------- workflow search, timers, payloads

    /** @return the fixture's start moved by {@code d}, as the API writes an instant */
    private String at(Duration d) {
        return fixture.t0.plus(d).toString();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> body, String name) {
        return (List<Map<String, Object>>) body.get(name);
    }

    @Test
    void workflows_are_searched_by_type_status_and_start_time_newest_first_and_paged() {
        WebTestClient c = readOnly();
        String wf = "/api/workflows";
        // given WF (checkout, running, t0), EXPIRED (checkout, failed, t0 - 1h), REFUND (refund, completed, t0 - 2h)
        // when every started workflow is listed; then newest start first, with the workflow page's summary
        Map<String, Object> all =
                json(c.get().uri(BASE + wf).exchange().expectStatus().isOk());
        assertThat(list(all, "workflows"))
                .extracting(w -> w.get("workflowId"))
                .containsExactly(WF.toString(), ConsoleFixture.EXPIRED.toString(), ConsoleFixture.REFUND.toString());
        assertThat(list(all, "workflows").get(1))
                .containsEntry("workflowType", "checkout")
                .containsEntry("status", "FAILED")
                .containsEntry("startedAt", at(Duration.ofHours(-1)))
                .containsEntry("endedAt", at(Duration.ofMinutes(-30)))
                .containsEntry("failureReason", "card expired");
        assertThat(all.get("next")).isNull();
        // by type, by status (any case), by start time: an instant or an age back from now, both bounds inclusive
        assertThat(list(json(c.get().uri(BASE + wf + "?type=checkout").exchange()), "workflows"))
                .extracting(w -> w.get("workflowId"))
                .containsExactly(WF.toString(), ConsoleFixture.EXPIRED.toString());
        assertThat(list(json(c.get().uri(BASE + wf + "?status=completed").exchange()), "workflows"))
                .extracting(w -> w.get("workflowId"))
                .containsExactly(ConsoleFixture.REFUND.toString());
        assertThat(list(
                        json(c.get()
                                .uri(
                                        BASE + wf + "?startedAfter={a}&startedBefore={b}",
                                        at(Duration.ofHours(-2)),
                                        at(Duration.ofHours(-1)))
                                .exchange()),
                        "workflows"))
                .extracting(w -> w.get("workflowId"))
                .containsExactly(ConsoleFixture.EXPIRED.toString(), ConsoleFixture.REFUND.toString());
        assertThat(list(json(c.get().uri(BASE + wf + "?startedAfter=90m").exchange()), "workflows"))
                .extracting(w -> w.get("workflowId"))
                .containsExactly(WF.toString(), ConsoleFixture.EXPIRED.toString());
        assertThat(list(
                        json(c.get()
                                .uri(BASE + wf + "?type=checkout&status=RUNNING&startedBefore=1h")
                                .exchange()),
                        "workflows"))
                .isEmpty();
        // paged: a page of 1, then the next pages after its cursor, each workflow once, and no more
        Map<String, Object> first = json(c.get().uri(BASE + wf + "?limit=1").exchange());
        assertThat(first.get("next")).isEqualTo(at(Duration.ZERO) + "," + WF);
        Map<String, Object> second = json(
                c.get().uri(BASE + wf + "?limit=1&after={a}", first.get("next")).exchange());
        assertThat(list(second, "workflows"))
                .extracting(w -> w.get("workflowId"))
                .containsExactly(ConsoleFixture.EXPIRED.toString());
        Map<String, Object> third = json(c.get()
                .uri(BASE + wf + "?limit=5&after={a}", second.get("next"))
                .exchange());
        assertThat(list(third, "workflows"))
                .extracting(w -> w.get("workflowId"))
                .containsExactly(ConsoleFixture.REFUND.toString());
        assertThat(third.get("next")).isNull();
    }

    @Test
    void malformed_workflow_search_parameters_are_400_naming_the_parameter() {
        WebTestClient c = readOnly();
        Map<String, String> named = new LinkedHashMap<>();
        named.put("status=BROKEN", "status must be one of RUNNING, PAUSED");
        named.put("startedAfter=yesterday", "startedAfter must be an age");
        named.put("startedBefore=P99999999999999D", "startedBefore must be an age");
        named.put("parent=nope", "parent must be a UUID");
        named.put("after=nope", "after must be the next cursor");
        named.put("after=2026-03-01T10:00:00Z,nope", "after must be the next cursor");
        named.put("limit=0", "limit must be a whole number from 1 to 500");
        named.put("limit=501", "limit");
        named.put("type=a&type=b", "parameter 'type' is given 2 times");
        named.put("colour=red", "unknown parameter 'colour'");
        named.put("type=" + "t".repeat(1025), "type is longer than 1024 characters");
        named.forEach((query, message) ->
                refused(c.get().uri(BASE + "/api/workflows?" + query).exchange(), BAD_REQUEST, "bad-request", message));
    }

    @Test
    void timers_are_listed_due_now_or_within_a_duration_in_fire_order_and_paged() {
        WebTestClient c = readOnly();
        // given two due timers (t0 - 1 min, t0) and one due an hour after t0; now is t0 + 10 min
        Map<String, Object> due =
                json(c.get().uri(BASE + "/api/timers").exchange().expectStatus().isOk());
        assertThat(list(due, "timers"))
                .extracting(t -> t.get("workflowId") + " " + t.get("timerId") + " " + t.get("fireAt"))
                .containsExactly(
                        ConsoleFixture.REFUND + " timer:named:a,b " + at(Duration.ofMinutes(-1)),
                        WF + " timer:anonymous:7 " + at(Duration.ZERO));
        assertThat(list(due, "timers"))
                .allSatisfy(t -> assertThat(((Number) t.get("dueInMillis")).longValue())
                        .as("overdue")
                        .isNegative());
        // within an hour: the upcoming one too, due in under 50 minutes
        List<Map<String, Object>> hour =
                list(json(c.get().uri(BASE + "/api/timers?dueWithin=1h").exchange()), "timers");
        assertThat(hour).hasSize(ConsoleFixture.TIMERS);
        assertThat(hour.get(2)).containsEntry("timerId", "timer:named:reminder");
        assertThat(((Number) hour.get(2).get("dueInMillis")).longValue())
                .isPositive()
                .isLessThanOrEqualTo(Duration.ofMinutes(50).toMillis());
        // of one workflow, whenever due
        assertThat(list(
                        json(c.get()
                                .uri(BASE + "/api/timers?dueWithin=any&workflowId=" + WF)
                                .exchange()),
                        "timers"))
                .extracting(t -> t.get("timerId"))
                .containsExactly("timer:anonymous:7", "timer:named:reminder");
        // paged by fire time, workflow and timer: the cursor holds a timer id with a comma
        Map<String, Object> first =
                json(c.get().uri(BASE + "/api/timers?dueWithin=any&limit=1").exchange());
        assertThat(first.get("next"))
                .isEqualTo(at(Duration.ofMinutes(-1)) + "," + ConsoleFixture.REFUND + ",timer:named:a,b");
        Map<String, Object> rest = json(c.get()
                .uri(BASE + "/api/timers?dueWithin=any&limit=2&after={a}", first.get("next"))
                .exchange());
        assertThat(list(rest, "timers"))
                .extracting(t -> t.get("timerId"))
                .containsExactly("timer:anonymous:7", "timer:named:reminder");
        assertThat(rest.get("next")).isNull();
    }

    @Test
    void malformed_timer_parameters_are_400_naming_the_parameter() {
        WebTestClient c = readOnly();
        Map<String, String> named = new LinkedHashMap<>();
        named.put("dueWithin=soon", "dueWithin must be a duration");
        named.put("dueWithin=-1h", "dueWithin must be a duration");
        named.put("dueWithin=2026-03-01T10:00:00Z", "dueWithin must be a duration");
        named.put(
                "dueWithin=999999999d",
                "dueWithin must be a duration (0s, 30s, 10m, 2h, 1d, PT5M) reaching no"
                        + " later than 2262-04-11T23:47:16.854775807Z");
        named.put("workflowId=nope", "workflowId must be a UUID");
        named.put("after=nope", "after must be the next cursor");
        named.put("after=2026-03-01T10:00:00Z," + WF + ",timer:other:1", "after must be the next cursor");
        named.put("limit=0", "limit");
        named.put("dueWithin=1h&dueWithin=2h", "parameter 'dueWithin' is given 2 times");
        named.put("status=due", "unknown parameter 'status'");
        named.forEach((query, message) ->
                refused(c.get().uri(BASE + "/api/timers?" + query).exchange(), BAD_REQUEST, "bad-request", message));
    }

    @Test
    void payloads_are_shown_as_json_or_as_base64_with_a_note() {
        WebTestClient c = readOnly();
        // given a row whose input is JSON and one whose input bytes are not UTF-8
        Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
        list(json(c.get().uri(BASE + "/api/rows?workflowId=" + WF).exchange()), "rows")
                .forEach(r -> rows.put((String) r.get("dispatchKey"), r));
        assertThat(rows.get(OutboxRow.dispatchKey(WF, 0)))
                .containsEntry("input", "{\"n\":0,\"activity\":\"charge-card\"}")
                .containsEntry("inputFormat", "json")
                .containsEntry("inputTruncated", false);
        assertThat(rows.get(OutboxRow.dispatchKey(WF, 1)))
                .containsEntry("input", Base64.getEncoder().encodeToString(ConsoleFixture.NOT_UTF8))
                .containsEntry("inputFormat", "base64");
        // when a history is shown; then each payload in an event is its JSON, not the base64 of it
        Map<String, Object> start = list(
                        json(c.get()
                                .uri(BASE + "/api/workflows/" + WF + "/history")
                                .exchange()),
                        "events")
                .get(0);
        assertThat(start).containsEntry("previewFormat", "json");
        assertThat((String) start.get("preview"))
                .contains("\"input\":{\"content_type\":\"Json\",\"json\":{\"order\":42}}")
                .doesNotContain("\"bytes\"");
        // and bytes that are not UTF-8 JSON stay base64, with a note saying so
        List<Map<String, Object>> refund = list(
                json(c.get()
                        .uri(BASE + "/api/workflows/" + ConsoleFixture.REFUND + "/history")
                        .exchange()),
                "events");
        assertThat((String) refund.get(0).get("preview"))
                .contains("\"bytes\":\"" + Base64.getEncoder().encodeToString(ConsoleFixture.NOT_UTF8) + "\"")
                .contains("\"note\":\"" + PayloadPreview.NOT_JSON + "\"");
        assertThat((String) refund.get(1).get("preview")).contains("\"json\":{\"refunded\":true}");
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
        nothingChanged();
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
        nothingChanged();
    }

    // ---------------------------------------------------------------- malformed requests: a 4xx, one log line

    /** Asserts a refusal: the status, the error and a message naming what is wrong; returns the message. */
    @CanIgnoreReturnValue
    private static String refused(WebTestClient.ResponseSpec spec, HttpStatus status, String error, String names) {
        Map<String, Object> e = json(spec.expectStatus().isEqualTo(status));
        assertThat(e).containsEntry("error", error);
        assertThat((String) e.get("message")).contains(names);
        return (String) e.get("message");
    }

    /** Posts {@code body} as it is, with the session's tokens and the given Content-Type header (or none). */
    private static WebTestClient.ResponseSpec postRaw(
            WebTestClient client, Session s, String contentType, String body) {
        WebTestClient.RequestBodySpec spec = client.post()
                .uri(BASE + "/api/actions/redrive")
                .cookie(Csrf.COOKIE, s.cookie())
                .header(Csrf.HEADER, s.token());
        if (contentType != null) {
            spec = spec.header(HttpHeaders.CONTENT_TYPE, contentType);
        }
        // written as bytes, so that the client leaves a Content-Type it cannot parse as it is
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return spec.body(BodyInserters.fromDataBuffers(Mono.just(DefaultDataBufferFactory.sharedInstance.wrap(bytes))))
                .exchange();
    }

    /** Every line written to System.err (where slf4j-simple logs, looking it up on every line) while run runs. */
    private static List<String> log(Runnable run) {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            run.run();
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void an_age_past_what_an_instant_can_count_back_to_is_400_naming_olderThan() {
        // given ages whose subtraction from now overflows (java.time throws DateTimeException)
        WebTestClient c = actions((a, r) -> Mono.just(true));
        Session s = session(c);
        for (String age : List.of("P99999999999999D", "PT9223372036854775807S")) {
            // when rows, rows/count and an action by filter are asked for them; then each is a 400 naming olderThan
            assertThat(refused(
                            c.get().uri(BASE + "/api/rows?olderThan={a}", age).exchange(),
                            BAD_REQUEST,
                            "bad-request",
                            age))
                    .startsWith("olderThan must be");
            refused(
                    c.get().uri(BASE + "/api/rows/count?olderThan={a}", age).exchange(),
                    BAD_REQUEST,
                    "bad-request",
                    "olderThan");
            refused(
                    act(c, s, "redrive", Map.of("filter", Map.of("olderThan", age), "confirm", true)),
                    BAD_REQUEST,
                    "bad-request",
                    "olderThan");
        }
        // an age Java can count back to but a store cannot hold is the store's 400, naming it too
        refused(
                c.get().uri(BASE + "/api/rows?olderThan=999999999d").exchange(),
                BAD_REQUEST,
                "bad-request",
                "olderThan");
        nothingChanged();
    }

    @Test
    void an_action_whose_content_type_is_not_json_is_415_naming_the_header_and_changes_nothing() {
        WebTestClient c = actions((a, r) -> Mono.just(true));
        Session s = session(c);
        String body = "{\"keys\": [\"" + fixture.failedKeys.get(0) + "\"]}";
        // given a valid action body sent as text, with no Content-Type, and with headers that do not parse
        for (String type : Arrays.asList("text/plain", null, "application/json;charset=no-such", ";;;")) {
            // when it is posted; then it is a 415 naming the header, before the body is read
            refused(postRaw(c, s, type, body), UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type", "Content-Type");
        }
        // and the same body as application/json is taken
        postRaw(c, s, "application/json; charset=UTF-8", body).expectStatus().isOk();
        assertThat(fixture.status(fixture.failedKeys.get(0))).isEqualTo(OutboxStatus.PENDING);
    }

    @Test
    void an_action_body_over_the_hosts_codec_limit_is_413_and_changes_nothing() {
        WebTestClient c = actions((a, r) -> Mono.just(true));
        Session s = session(c);
        // given a body over the 256 KiB WebFlux reads into memory by default, naming a real dead letter first
        String body = "{\"keys\": [\"" + fixture.failedKeys.get(0) + "\", \"" + "k".repeat(300 * 1024) + "\"]}";
        // when it is posted; then it is a 413 naming the body, and the dead letter is still failed
        refused(postRaw(c, s, "application/json", body), PAYLOAD_TOO_LARGE, "payload-too-large", "the body");
        nothingChanged();
    }

    @Test
    void an_unparsable_origin_is_refused_as_csrf_even_without_a_token() {
        WebTestClient c = actions((a, r) -> Mono.just(true));
        Session s = session(c);
        for (String origin : List.of("http://a b", "http://[::1", "%%%")) {
            // given an Origin header that is no URI, without a CSRF token and with a valid pair
            for (Session tokens : Arrays.asList(null, s)) {
                WebTestClient.RequestBodySpec post = c.post()
                        .uri(BASE + "/api/actions/redrive")
                        .contentType(MediaType.APPLICATION_JSON)
                        .header(HttpHeaders.ORIGIN, origin);
                if (tokens != null) {
                    post = post.cookie(Csrf.COOKIE, tokens.cookie()).header(Csrf.HEADER, tokens.token());
                }
                // when it is posted; then a 403 naming the header: it never gets past the CSRF check
                refused(
                        post.bodyValue(Map.of("keys", fixture.failedKeys)).exchange(),
                        FORBIDDEN,
                        "csrf",
                        "Origin header");
            }
        }
        nothingChanged();
    }

    @Test
    void rows_count_checks_limit_and_after_as_rows_does() {
        WebTestClient c = readOnly();
        // given the paging parameters rows refuses; when rows/count gets them; then the same 400
        for (String q : List.of("limit=ten", "limit=0", "limit=99999", "after=" + "k".repeat(1025))) {
            refused(c.get().uri(BASE + "/api/rows?" + q).exchange(), BAD_REQUEST, "bad-request", q.split("=")[0]);
            refused(c.get().uri(BASE + "/api/rows/count?" + q).exchange(), BAD_REQUEST, "bad-request", q.split("=")[0]);
        }
        // and valid ones are taken and do not narrow the count, which starts at the first row
        assertThat(json(c.get()
                        .uri(BASE + "/api/rows/count?status=failed&namespace=billing&limit=1&after=zzz")
                        .exchange()
                        .expectStatus()
                        .isOk()))
                .containsEntry("count", ConsoleFixture.FAILED_BULK);
    }

    @Test
    void the_parameters_of_overview_and_history_are_checked_like_the_filters() {
        WebTestClient c = readOnly();
        String history = BASE + "/api/workflows/" + WF + "/history";
        // given a boolean that is not one, unknown, repeated and huge parameters; then each is a 400 naming it
        refused(c.get().uri(BASE + "/api/overview?fresh=maybe").exchange(), BAD_REQUEST, "bad-request", "fresh");
        refused(c.get().uri(BASE + "/api/overview?colour=red").exchange(), BAD_REQUEST, "bad-request", "colour");
        refused(c.get().uri(history + "?from=1&from=2").exchange(), BAD_REQUEST, "bad-request", "from");
        refused(
                c.get().uri(history + "?from=99999999999999999999").exchange(),
                BAD_REQUEST,
                "bad-request",
                "from must be a whole number");
        refused(c.get().uri(history + "?limit=-1").exchange(), BAD_REQUEST, "bad-request", "limit");
        refused(
                c.get().uri(BASE + "/api/rows?status=failed&status=done").exchange(),
                BAD_REQUEST,
                "bad-request",
                "status");
        String longStatus = refused(
                c.get().uri(BASE + "/api/rows?status={s}", "x".repeat(5000)).exchange(),
                BAD_REQUEST,
                "bad-request",
                "status");
        assertThat(longStatus).as("the echoed value is cut").hasSizeLessThan(300);
        c.get().uri(BASE + "/api/overview?fresh=true").exchange().expectStatus().isOk();
    }

    @Test
    void action_fields_of_the_wrong_type_are_400_naming_the_field_and_change_nothing() {
        WebTestClient c = actions((a, r) -> Mono.just(true));
        Session s = session(c);
        // given bodies whose target is null, of the wrong type, or asks to page; then each is a 400 naming it
        Map<String, String> named = new LinkedHashMap<>();
        named.put("{\"keys\": null}", "keys");
        named.put("{\"keys\": [42]}", "keys");
        named.put("{\"filter\": null}", "filter");
        named.put("{\"filter\": [\"status\"]}", "filter");
        named.put("{\"filter\": {\"namespace\": true}, \"confirm\": true}", "filter.namespace");
        named.put("{\"filter\": {\"limit\": 10}, \"confirm\": true}", "filter.limit");
        named.put("{\"filter\": {\"after\": \"a\"}, \"confirm\": true}", "filter.after");
        named.put("{\"filter\": {}, \"confirm\": \"yes\"}", "confirm");
        named.put("{\"workflowId\": null}", "workflowId");
        named.put("{\"workflowId\": 42}", "workflowId");
        named.put("{\"keys\": [\"a\"], \"resetAttempt\": 1}", "resetAttempt");
        named.put("42", "the body must be a JSON object");
        named.put("\"keys\"", "the body must be a JSON object");
        named.put("{\"keys\": [1e99999999999]}", "keys");
        named.put(
                "{\"filter\": {\"node\": 1" + "0".repeat(2000) + "}, \"confirm\": true}",
                "the body must be a JSON object");
        named.put("{\"filter\": ".repeat(5000), "the body must be a JSON object"); // past Jackson's nesting limit
        named.forEach(
                (body, name) -> refused(postRaw(c, s, "application/json", body), BAD_REQUEST, "bad-request", name));
        nothingChanged();
    }

    @Test
    void a_refused_request_is_logged_in_one_line_without_a_stack_trace() {
        WebTestClient c = actions((a, r) -> Mono.just(true));
        Session s = session(c);
        // given the four requests that were a 500 with a stack trace, and an age that carries a line break
        Map<String, Runnable> requests = new LinkedHashMap<>();
        requests.put(
                "GET " + BASE + "/api/rows: 400 olderThan must be",
                () -> c.get()
                        .uri(BASE + "/api/rows?olderThan=P99999999999999D")
                        .exchange()
                        .expectStatus()
                        .isBadRequest());
        requests.put(
                "POST " + BASE + "/api/actions/redrive: 415 the Content-Type header",
                () -> postRaw(c, s, "text/plain", "{}").expectStatus().isEqualTo(UNSUPPORTED_MEDIA_TYPE));
        requests.put(
                "POST " + BASE + "/api/actions/redrive: 413 the body",
                () -> postRaw(c, s, "application/json", "[\"" + "k".repeat(300 * 1024) + "\"]")
                        .expectStatus()
                        .isEqualTo(PAYLOAD_TOO_LARGE));
        requests.put(
                "POST " + BASE + "/api/actions/redrive: 403 the Origin header",
                () -> c.post()
                        .uri(BASE + "/api/actions/redrive")
                        .contentType(MediaType.APPLICATION_JSON)
                        .header(HttpHeaders.ORIGIN, "http://a b")
                        .bodyValue("{}")
                        .exchange()
                        .expectStatus()
                        .isForbidden());
        requests.put(
                "olderThan must be an age",
                () -> c.get()
                        .uri(BASE + "/api/rows?olderThan={a}", "1m\r\nINFO forged line")
                        .exchange()
                        .expectStatus()
                        .isBadRequest());
        requests.forEach((expected, request) -> {
            // when each is made; then the console logs one line naming the route, the status and what is wrong
            assertThat(log(request))
                    .as(expected)
                    .singleElement()
                    .asString()
                    .contains("INFO " + ConsoleHandlers.class.getName() + " - console refused ")
                    .contains(expected);
        });
        // and a line break in the request is escaped, so that it cannot forge a line of its own
        assertThat(log(requests.get("olderThan must be an age")))
                .singleElement()
                .asString()
                .contains("was '1m\\u000d\\u000aINFO forged line'");
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
