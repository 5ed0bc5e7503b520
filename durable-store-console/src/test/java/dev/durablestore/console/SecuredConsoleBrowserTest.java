package dev.durablestore.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.security.authentication.UserDetailsRepositoryReactiveAuthenticationManager;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.WebFilterChainProxy;

/**
 * The console's own page in headless Chromium behind Spring Security as a host runs it: form login,
 * CSRF protection as it comes (the token in the WebSession, masked per request), the host's
 * {@link ConsoleAuthorizer} letting operators act and no one else. The page sends Spring Security's
 * token as {@code GET session} hands it over, so an operator's redrive goes through, a viewer's is
 * refused by the authorizer, and a request without that token is refused by Spring Security; none
 * of the refused ones changes a row (checked in the database file).
 */
class SecuredConsoleBrowserTest {

    @TempDir
    static Path dir;

    private static ConsoleFixture fixture;
    private static ConsoleServer server;
    private static ChromeDriver browser;

    @BeforeAll
    static void start() throws Exception {
        fixture = new ConsoleFixture(dir, null, true);
        ConsoleAuthorizer operatorsOnly = (action, request) -> request.principal()
                .map(p -> p instanceof Authentication a
                        && a.getAuthorities().stream()
                                .anyMatch(g -> g.getAuthority().equals("ROLE_OPERATOR")))
                .defaultIfEmpty(false);
        DurableConsole console = DurableConsole.builder(fixture.store)
                .withOptions(ConsoleOptions.defaults().withReadOnly(false).withCountTtl(Duration.ZERO))
                .withAuthorizer(operatorsOnly)
                .withClock(fixture.clock)
                .build();
        MapReactiveUserDetailsService users = new MapReactiveUserDetailsService(
                User.withUsername("olga")
                        .password("{noop}secret")
                        .roles("OPERATOR")
                        .build(),
                User.withUsername("victor")
                        .password("{noop}secret")
                        .roles("VIEWER")
                        .build());
        // the host's security: everything behind a form login, CSRF on (the default), but the
        // favicon public, as hosts serve their static files. Behind the login, the favicon request
        // Chromium sends after each page could come back after loggedOut() cleared the cookies and
        // set a new session cookie: a login form rendered before it then posts a CSRF token of
        // another session, is refused, and the browser stays on /login (seen once in a full run).
        WebFilterChainProxy security = new WebFilterChainProxy(ServerHttpSecurity.http()
                .authenticationManager(new UserDetailsRepositoryReactiveAuthenticationManager(users))
                .authorizeExchange(a ->
                        a.pathMatchers("/favicon.ico").permitAll().anyExchange().authenticated())
                .formLogin(Customizer.withDefaults())
                .build());
        server = new ConsoleServer(console.router("/ops/console"), security);
        browser = ChromiumSupport.start(Files.createDirectories(dir.resolve("profile")));
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (server != null) {
            server.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    @BeforeEach
    void loggedOut() {
        browser.get(server.url("/login"));
        browser.manage().deleteAllCookies();
    }

    private static WebDriverWait waiting() {
        return new WebDriverWait(browser, Duration.ofSeconds(15));
    }

    /** Logs in on the host's login page, then opens the console's dead letters. */
    private static void loginAndOpenDeadLetters(String user) {
        browser.get(server.url("/ops/console/"));
        waiting()
                .until(ExpectedConditions.presenceOfElementLocated(By.id("username")))
                .sendKeys(user);
        browser.findElement(By.id("password")).sendKeys("secret");
        browser.findElement(By.cssSelector("button[type='submit']")).click();
        // Spring Security sends the browser back to the page it saved
        waiting().until(d -> !d.getCurrentUrl().contains("/login"));
        browser.get(server.url("/ops/console/#/dead"));
        waiting().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("table#rows")));
        assertThat(browser.findElement(By.id("mode")).getText()).isEqualTo("actions enabled");
    }

    private static void redriveOnThePage(String key) {
        browser.findElement(By.cssSelector("input.select[data-key='" + key + "']"))
                .click();
        browser.findElement(By.id("btn-redrive-selected")).click();
        waiting()
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-ok")))
                .click();
    }

    private static String status(String key) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("console.db"));
                PreparedStatement ps = c.prepareStatement("SELECT status FROM outbox WHERE dispatch_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    @Test
    void an_operators_redrive_from_the_page_goes_through_spring_securitys_csrf_check() throws Exception {
        // given an operator logged in on the host's login page, and a dead letter
        String key = fixture.failedKeys.get(0);
        assertThat(status(key)).isEqualTo("failed");
        loginAndOpenDeadLetters("olga");
        // when the page redrives it
        redriveOnThePage(key);
        // then it is redriven
        waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "1 row(s) changed"));
        assertThat(status(key)).isEqualTo("pending");
    }

    @Test
    void a_viewers_redrive_from_the_page_is_refused_by_the_hosts_authorizer() throws Exception {
        // given a viewer logged in, and a dead letter
        String key = fixture.failedKeys.get(1);
        loginAndOpenDeadLetters("victor");
        // when the page redrives it, then the authorizer refuses and the row stays a dead letter
        redriveOnThePage(key);
        waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "redrive refused"));
        assertThat(browser.findElement(By.id("flash")).getText()).contains("the host's authorizer refused redrive");
        assertThat(status(key)).isEqualTo("failed");
    }

    @Test
    void an_action_without_spring_securitys_token_is_refused_and_changes_nothing() throws Exception {
        // given an operator logged in, and a dead letter
        String key = fixture.failedKeys.get(2);
        loginAndOpenDeadLetters("olga");
        // when a script in the page posts the action with the console's token only
        @SuppressWarnings("unchecked")
        Map<String, Object> answer = (Map<String, Object>) browser.executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "fetch('/ops/console/api/session').then(r => r.json()).then(s =>"
                        + " fetch('/ops/console/api/actions/redrive', {method: 'POST', headers: {"
                        + "'Content-Type': 'application/json', 'X-Console-CSRF': s.csrfToken},"
                        + " body: JSON.stringify({keys: [arguments[0]]})}))"
                        + ".then(r => r.text().then(b => done({status: r.status, body: b})));",
                key);
        // then Spring Security refuses it (its plain "Access Denied", not the console's JSON: the user
        // may act, the CSRF filter stopped it), and the row stays a dead letter
        assertThat(answer).containsEntry("status", 403L);
        assertThat((String) answer.get("body")).isEqualTo("Access Denied").doesNotContain("\"error\"");
        assertThat(status(key)).isEqualTo("failed");
    }
}
