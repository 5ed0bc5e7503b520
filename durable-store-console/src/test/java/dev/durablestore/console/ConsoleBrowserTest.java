package dev.durablestore.console;

import static dev.durablestore.console.ConsoleFixture.TIMEOUT;
import static dev.durablestore.console.ConsoleFixture.WF;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RetentionPolicy;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The console in headless Chromium against a real SQLite store with live traffic, served by a real
 * Netty server: numbers checked against the database file, a bulk redrive moving rows, a read-only
 * console offering and accepting no action. Saves a screenshot of each page in
 * {@code target/screenshots}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {

    @TempDir
    static Path dir;

    private static ConsoleFixture fixture;
    private static ConsoleServer server;
    private static ChromeDriver browser;
    private static Disposable traffic;
    private static final Path SHOTS = Path.of("target", "screenshots");

    @BeforeAll
    static void start() throws Exception {
        TrafficMeter meter = new TrafficMeter();
        fixture = new ConsoleFixture(dir, meter, true);
        ConsoleOptions options = ConsoleOptions.defaults().withCountTtl(Duration.ofMillis(500));
        DurableConsole actions = DurableConsole.builder(fixture.store)
                .withOptions(options.withReadOnly(false).withRetention(RetentionPolicy.closedFor(Duration.ofHours(1))))
                .withAuthorizer((action, request) -> Mono.just(true))
                .withMeter(meter)
                .withClock(fixture.clock)
                .build();
        DurableConsole readOnly = DurableConsole.builder(fixture.store)
                .withOptions(options)
                .withMeter(meter)
                .withClock(fixture.clock)
                .build();
        server = new ConsoleServer(actions.router("/ops/console").and(readOnly.router("/ro")));
        traffic = traffic();
        browser = ChromiumSupport.start(Files.createDirectories(dir.resolve("profile")));
        Files.createDirectories(SHOTS);
    }

    /** Live traffic on its own route: rows staged (20 to 90 a second, in waves), claimed and completed all the time. */
    private static Disposable traffic() {
        ClaimScope live = ClaimScope.of("traffic", "live");
        long[] n = {0};
        return Flux.interval(Duration.ofMillis(100))
                .onBackpressureDrop()
                .concatMap(tick -> {
                    List<OutboxRow> rows = new ArrayList<>();
                    for (int i = 0, batch = 2 + (int) (tick / 20 % 8); i < batch; i++) {
                        WorkflowId w = WorkflowId.random();
                        rows.add(OutboxRow.pending(
                                        w,
                                        n[0]++,
                                        "ping",
                                        Payload.json("{\"tick\":" + tick + "}"),
                                        fixture.clock.instant())
                                .withRoute("traffic", "live", null));
                    }
                    return fixture.store
                            .appendOutboxBatch(rows)
                            .then(fixture.store.claim(ClaimRequest.of(6).withScope(live)))
                            .flatMap(claimed -> fixture.store.settleKeys(
                                    claimed.stream().map(OutboxRow::dispatchKey).toList(), Settlement.complete()))
                            .onErrorResume(e -> Mono.empty());
                })
                .subscribe();
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (traffic != null) {
            traffic.dispose();
        }
        if (server != null) {
            server.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    /**
     * A wait that tries again when an element it read was replaced meanwhile: the live rates chart
     * redraws its points on every sample, so a point found may be gone before its attribute is read.
     */
    private static WebDriverWait waiting() {
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(15));
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    /**
     * @param read what to read from the page
     * @return what it read, read again if the chart redrew an element it read meanwhile
     */
    private static String read(Function<WebDriver, String> read) {
        return waiting().until(read::apply);
    }

    private static void open(String path) {
        browser.get(server.url(path));
    }

    private static void screenshot(String name) throws Exception {
        Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(shot, SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** Counts in the database file itself, not through the store. */
    private static long db(String where, Object... args) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("console.db"));
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM outbox WHERE " + where)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    /**
     * Reads values of one drawing of the live chart in one script: the chart redraws on every
     * sample, so values read one call at a time may come from two drawings.
     *
     * @param script JavaScript returning an array of values
     * @param args the script's {@code arguments}
     * @return the values, as text
     */
    private static String[] drawing(String script, Object... args) {
        List<?> values = (List<?>) browser.executeScript(script, args);
        return values.stream().map(String::valueOf).toArray(String[]::new);
    }

    /** The routes table is redrawn on every refresh: a cell found may be replaced before it is read. */
    private static String cell(String route, String column) {
        return read(d -> d.findElement(By.cssSelector("tr[data-route='" + route + "'] td.c-" + column))
                .getText());
    }

    private static long number(String text) {
        return Long.parseLong(text.replace(",", "").replace("≥", "").trim());
    }

    @Test
    @Order(1)
    void the_overview_shows_the_databases_counts_and_live_rates() throws Exception {
        open("/ops/console/");
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("table#routes")));
        assertThat(browser.findElement(By.id("mode")).getText()).isEqualTo("actions enabled");
        for (String[] check : new String[][] {
            {"billing/payments/", "failed", "billing", "failed"},
            {"orders/checkout/", "pending", "orders", "pending"},
            {"orders/checkout/", "done", "orders", "done"},
            {"shipping/labels/", "claimed", "shipping", "claimed"}
        }) {
            assertThat(number(cell(check[0], check[1])))
                    .as(check[0] + check[1])
                    .isEqualTo(db("namespace = ? AND status = ?", check[2], check[3]));
        }
        assertThat(number(cell("shipping/labels/", "staleClaimed"))).isEqualTo(ConsoleFixture.STUCK);
        // a claimer was seen on shipping/labels within the lease (its fresh claim), none on billing/payments
        assertThat(read(d -> d.findElement(By.cssSelector("tr[data-route='shipping/labels/'] td.c-claimerSeen"))
                        .getAttribute("data-seen")))
                .isEqualTo("true");
        assertThat(read(d -> d.findElement(By.cssSelector("tr[data-route='billing/payments/'] td.c-claimerSeen"))
                        .getText()))
                .startsWith("not within lease");
        // the retention backlog of an hour's retention: REFUND closed 1 h 10 min ago, EXPIRED 40 min ago
        assertThat(read(d -> d.findElement(By.id("retention-overdue")).getText()))
                .isEqualTo("1");
        assertThat(read(d -> d.findElement(By.id("retention-held")).getText())).isEqualTo("0");
        // the rates come from the server-sent events of the live traffic
        waiting().until(d -> {
            String staged = d.findElement(By.id("rate-staged")).getText();
            return !staged.equals("…") && !staged.equals("n/a") && Double.parseDouble(staged) > 0;
        });
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-route='traffic/live/']")));
    }

    @Test
    @Order(2)
    void the_live_rates_chart_draws_the_server_sent_samples_and_moves_on() throws Exception {
        // given live traffic on the store; when the overview is open
        open("/ops/console/");
        WebElement chart = waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("rates-chart")));
        // then the chart fills with samples of all three series, at least a few seconds' worth
        new WebDriverWait(browser, Duration.ofSeconds(45))
                .until(d -> Integer.parseInt(chart.getAttribute("data-samples")) >= 12);
        for (String series : new String[] {"staged", "claimed", "settled"}) {
            String[] drawn = drawing(
                    "const p = document.getElementById('rates-path-' + arguments[0]);"
                            + "return [p.getAttribute('data-points'), p.getAttribute('d'),"
                            + " document.querySelectorAll('#rates-points-' + arguments[0] + ' circle').length];",
                    series);
            assertThat(Integer.parseInt(drawn[0])).as(series).isGreaterThanOrEqualTo(12);
            assertThat(drawn[1]).as(series).startsWith("M").contains(" L");
            assertThat(Integer.parseInt(drawn[2])).as(series).isEqualTo(Integer.parseInt(drawn[0]));
        }
        // some staged point is above the zero line: the traffic stages 20 to 90 rows a second
        String[] heights = drawing("return [document.querySelector('svg#rates-chart line.axis').getAttribute('y1')]"
                + ".concat(Array.from(document.querySelectorAll('#rates-points-staged circle'))"
                + ".map(c => c.getAttribute('cy')));");
        double zero = Double.parseDouble(heights[0]);
        assertThat(List.of(heights).subList(1, heights.length))
                .anySatisfy(cy -> assertThat(Double.parseDouble(cy)).isLessThan(zero));
        // accessible: an image with a label naming the current values, axis titles, a legend, numbers as text
        assertThat(chart.getAttribute("role")).isEqualTo("img");
        assertThat(chart.getAttribute("aria-label"))
                .contains("staged")
                .contains("claimed")
                .contains("settled");
        assertThat(chart.getText())
                .contains("rows / s")
                .contains("seconds ago")
                .contains("now")
                .contains("−60 s");
        assertThat(browser.findElement(By.id("rates-legend")).getText())
                .contains("Staged / s")
                .contains("Claimed / s")
                .contains("Settled / s");
        assertThat(Double.parseDouble(browser.findElement(By.id("rate-staged")).getText()))
                .isGreaterThan(0);
        screenshot("overview");

        // and when the next sample arrives, the newest point is another one and the line has moved
        String[] before = drawing("return [document.querySelector('#rates-points-staged circle:last-child')"
                + ".getAttribute('data-seq'), document.getElementById('rates-path-staged').getAttribute('d')];");
        String lastSeq = before[0];
        String line = before[1];
        waiting()
                .until(d -> !d.findElement(By.cssSelector("#rates-points-staged circle:last-child"))
                        .getAttribute("data-seq")
                        .equals(lastSeq));
        assertThat(Long.parseLong(read(d -> d.findElement(By.cssSelector("#rates-points-staged circle:last-child"))
                        .getAttribute("data-seq"))))
                .isGreaterThan(Long.parseLong(lastSeq));
        assertThat(read(d -> d.findElement(By.id("rates-path-staged")).getAttribute("d")))
                .isNotEqualTo(line);
    }

    @Test
    @Order(3)
    void the_workflow_view_shows_summary_history_and_rows() throws Exception {
        open("/ops/console/#/workflow/" + WF);
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#wf-history li")));
        assertThat(browser.findElement(By.id("wf-summary")).getText())
                .contains("checkout")
                .contains("RUNNING");
        assertThat(browser.findElements(By.cssSelector("#wf-history li"))).hasSize(2);
        assertThat(browser.findElements(By.cssSelector("#wf-outbox tbody tr"))).hasSize(3);
        assertThat(browser.findElement(By.cssSelector("#wf-history li[data-seq='2']"))
                        .getText())
                .contains("SignalReceived")
                .contains("…");
        // the failed row's attempt history (O66, O67): its last failure in a line, every one when opened;
        // the markup in its texts is shown as text and never runs
        WebElement failed =
                browser.findElement(By.cssSelector("#wf-outbox tr[data-key='" + OutboxRow.dispatchKey(WF, 0) + "']"));
        assertThat(failed.findElement(By.cssSelector("td.num")).getText()).isEqualTo("2");
        WebElement history = failed.findElement(By.cssSelector("details.failures"));
        assertThat(history.findElement(By.cssSelector("summary")).getText())
                .startsWith("Attempt 2: " + ConsoleFixture.HOSTILE.type() + ": " + ConsoleFixture.HOSTILE.message())
                .contains("(2 failures)");
        history.findElement(By.cssSelector("summary")).click();
        List<WebElement> attempts = history.findElements(By.cssSelector("ol.failure-list li"));
        assertThat(attempts).extracting(a -> a.getAttribute("data-attempt")).containsExactly("1", "2");
        assertThat(attempts.get(0).getText())
                .contains("Attempt 1")
                .contains("java.net.ConnectException: ledger unavailable")
                .contains("at com.example.Ledger.post(Ledger.java:42)");
        assertThat(attempts.get(1).findElement(By.cssSelector("pre.trace")).getText())
                .contains("at <svg onload=\"window.pwned=3\">");
        assertThat(failed.findElements(By.cssSelector("img, script, b, svg"))).isEmpty();
        assertThat(browser.executeScript("return window.pwned === undefined")).isEqualTo(true);
        screenshot("workflow");
        // an unknown id shows a clear message
        open("/ops/console/#/workflow/99999999-9999-4999-8999-999999999999");
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("wf-error")));
        assertThat(browser.findElement(By.id("wf-error")).getText()).contains("no workflow");
    }

    @Test
    @Order(4)
    void stuck_claims_are_listed_and_one_is_released() throws Exception {
        open("/ops/console/#/stuck");
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("table#rows")));
        assertThat(browser.findElements(By.cssSelector("table#rows tbody tr"))).hasSize(ConsoleFixture.STUCK);
        // each is on its second attempt, after a first one that failed
        assertThat(browser.findElements(By.cssSelector("table#rows tbody tr"))).allSatisfy(tr -> {
            assertThat(tr.findElement(By.cssSelector("td.num")).getText()).isEqualTo("2");
            assertThat(tr.findElement(By.cssSelector("td.failures-cell summary"))
                            .getText())
                    .isEqualTo("Attempt 1: label printer timed out");
        });
        screenshot("stuck-claims");
        String key = fixture.stuckKeys.get(0);
        browser.findElement(By.cssSelector("input.select[data-key='" + key + "']"))
                .click();
        browser.findElement(By.id("btn-release-selected")).click();
        waiting()
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-ok")))
                .click();
        waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "1 row(s) changed"));
        assertThat(db("dispatch_key = ? AND status = 'pending'", key)).isEqualTo(1);
        waiting()
                .until(d ->
                        d.findElements(By.cssSelector("table#rows tbody tr")).size() == ConsoleFixture.STUCK - 1);
    }

    @Test
    @Order(5)
    void a_read_only_console_offers_and_accepts_no_action() throws Exception {
        long failed = db("status = 'failed'");
        open("/ro/#/dead");
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("table#rows")));
        assertThat(browser.findElement(By.id("mode")).getText()).isEqualTo("read-only");
        assertThat(browser.findElement(By.id("no-actions")).getText()).contains("Read-only");
        assertThat(browser.findElements(By.cssSelector("button[id^='btn-redrive'], button[id^='btn-cancel'], "
                        + "button[id^='btn-release'], input.select")))
                .isEmpty();
        screenshot("read-only");
        // the API behind it refuses an action even when the page is bypassed
        @SuppressWarnings("unchecked")
        Map<String, Object> answer = (Map<String, Object>) browser.executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "fetch('/ro/api/actions/redrive', {method: 'POST', headers: {'Content-Type': 'application/json'},"
                        + " body: JSON.stringify({keys: [arguments[0]]})})"
                        + ".then(r => r.json().then(b => done({status: r.status, error: b.error})));",
                fixture.failedKeys.get(0));
        assertThat(answer).containsEntry("status", 403L).containsEntry("error", "read-only");
        assertThat(db("status = 'failed'")).isEqualTo(failed);
    }

    @Test
    @Order(6)
    void a_bulk_redrive_by_filter_moves_the_rows_it_counted() throws Exception {
        long refunds = db("namespace = 'billing' AND activity_type = 'refund' AND status = 'failed'");
        assertThat(refunds).isEqualTo(ConsoleFixture.FAILED_BULK / 2);
        open("/ops/console/#/dead");
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("table#rows")));
        assertThat(browser.findElements(By.cssSelector("table#rows tbody tr"))).hasSize((int) db("status = 'failed'"));
        // each dead letter says why it failed
        assertThat(browser.findElement(By.cssSelector(
                                "tr[data-key='" + fixture.failedKeys.get(0) + "'] td.failures-cell summary"))
                        .getText())
                .isEqualTo("Attempt 1: com.example.PaymentDeclined: card declined");
        WebElement ns = browser.findElement(By.id("f-namespace"));
        ns.sendKeys("billing");
        browser.findElement(By.id("f-activityType")).sendKeys("refund");
        browser.findElement(By.id("btn-apply")).click();
        waiting()
                .until(d ->
                        d.findElements(By.cssSelector("table#rows tbody tr")).size() == refunds);
        browser.findElement(By.id("btn-redrive-filter")).click();
        WebElement text = waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-text")));
        assertThat(text.getText()).contains("Redrive " + refunds + " row(s)");
        screenshot("dead-letters");
        browser.findElement(By.id("confirm-ok")).click();
        waiting()
                .until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), refunds + " row(s) changed"));
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.id("no-rows")));
        assertThat(db("namespace = 'billing' AND activity_type = 'refund' AND status = 'failed'"))
                .isZero();
        assertThat(db("namespace = 'billing' AND activity_type = 'refund' AND status = 'pending'"))
                .isEqualTo(refunds);
        assertThat(db("namespace = 'billing' AND activity_type = 'charge-card' AND status = 'failed'"))
                .isEqualTo(ConsoleFixture.FAILED_BULK / 2);
        // and the overview follows
        open("/ops/console/");
        waiting().until(d -> {
            try {
                return number(cell("billing/payments/", "failed")) == ConsoleFixture.FAILED_BULK / 2
                        && number(cell("billing/payments/", "pending")) == refunds;
            } catch (RuntimeException e) {
                return false;
            }
        });
        assertThat(fixture.store
                        .rowState(fixture.failedKeys.get(1))
                        .block(TIMEOUT)
                        .status()
                        .token())
                .isEqualTo("pending");
    }

    @Test
    @Order(7)
    void workflows_are_searched_timers_listed_and_payloads_shown_as_json() throws Exception {
        // given WF (checkout, running), EXPIRED (checkout, failed) and REFUND (refund, completed);
        // when the failed checkouts are searched
        open("/ops/console/#/workflows");
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("table#workflows")));
        assertThat(browser.findElements(By.cssSelector("table#workflows tbody tr")))
                .extracting(tr -> tr.getAttribute("data-workflow"))
                .containsExactly(WF.toString(), ConsoleFixture.EXPIRED.toString(), ConsoleFixture.REFUND.toString());
        browser.findElement(By.id("f-type")).sendKeys("checkout");
        new Select(browser.findElement(By.id("f-status"))).selectByValue("FAILED");
        browser.findElement(By.id("f-startedAfter")).sendKeys("1d");
        browser.findElement(By.id("workflows-apply")).click();
        // then only the failed one is listed, with its failure, linked to its page
        waiting()
                .until(d -> d.findElements(By.cssSelector("table#workflows tbody tr"))
                                .size()
                        == 1);
        WebElement expired = browser.findElement(By.cssSelector("table#workflows tbody tr"));
        assertThat(expired.getAttribute("data-workflow")).isEqualTo(ConsoleFixture.EXPIRED.toString());
        assertThat(expired.getText()).contains("FAILED").contains("card expired");
        screenshot("workflows");
        expired.findElement(By.cssSelector("a")).click();
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#wf-history li[data-seq='1']")));
        // and a payload in the history is its JSON, indented, not the base64 of it
        assertThat(browser.findElement(By.cssSelector("#wf-history li[data-seq='1'] pre.preview"))
                        .getText())
                .contains("\"json\": {\n")
                .contains("\"order\": 7")
                .doesNotContain("\"bytes\"");

        // when WF's page is shown: a row input that is no UTF-8 JSON is base64 with a note
        open("/ops/console/#/workflow/" + WF);
        WebElement email = waiting()
                .until(ExpectedConditions.presenceOfElementLocated(
                        By.cssSelector("#wf-outbox tr[data-key='" + OutboxRow.dispatchKey(WF, 1) + "']")));
        assertThat(email.findElement(By.cssSelector("pre.preview")).getAttribute("data-format"))
                .isEqualTo("base64");
        assertThat(email.getText()).contains("not UTF-8 JSON: shown as base64");

        // and its timers link lists every timer of it, whenever due
        browser.findElement(By.id("wf-timers")).click();
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("table#timers")));
        assertThat(browser.findElements(By.cssSelector("table#timers tbody tr")))
                .extracting(tr -> tr.getAttribute("data-timer"))
                .containsExactly(WF + "/timer:anonymous:7", WF + "/timer:named:reminder");

        // when the timers page is opened: the due ones, overdue; within an hour also the upcoming one
        open("/ops/console/#/timers");
        waiting()
                .until(d ->
                        d.findElements(By.cssSelector("table#timers tbody tr")).size() == 2);
        assertThat(browser.findElements(By.cssSelector("table#timers tbody tr")))
                .allSatisfy(tr -> assertThat(tr.getText()).contains("overdue"));
        browser.findElement(By.id("f-dueWithin")).sendKeys("1h");
        browser.findElement(By.id("timers-apply")).click();
        waiting()
                .until(d ->
                        d.findElements(By.cssSelector("table#timers tbody tr")).size() == ConsoleFixture.TIMERS);
        assertThat(browser.findElement(By.cssSelector("tr[data-timer='" + WF + "/timer:named:reminder']"))
                        .getText())
                .contains("in ");
        screenshot("timers");
    }
}
