package dev.durablestore.spring;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link ConsoleSpringSecurityTest} with the host keeping Spring Security's CSRF token in a cookie
 * JavaScript may read ({@code CookieServerCsrfTokenRepository.withHttpOnlyFalse()}), the usual
 * setup for single-page applications: the console's page works the same way.
 */
@TestPropertySource(properties = "test.csrf=cookie")
class ConsoleSpringSecurityCookieCsrfTest extends ConsoleSpringSecurityTest {

    @Override
    String hostCsrfHeader() {
        return "X-XSRF-TOKEN";
    }
}
