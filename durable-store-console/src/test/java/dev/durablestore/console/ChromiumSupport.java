package dev.durablestore.console;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Debian Chromium for the browser tests, installed the way the PostgreSQL tests get their
 * server: when {@code /usr/bin/chromedriver} is missing it runs
 * {@code apt-get update && apt-get install -y chromium chromium-driver} (as root, as CI runs), so a clean
 * machine needs no preparation. Selenium is pointed at the installed driver and browser, so its
 * Selenium Manager never downloads anything.
 */
final class ChromiumSupport {

    static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    static final Path BROWSER = Path.of("/usr/bin/chromium");

    private ChromiumSupport() {}

    /** Installs Chromium and its driver when they are missing. */
    static synchronized void ensureInstalled() {
        if (Files.isExecutable(DRIVER) && Files.isExecutable(BROWSER)) {
            return;
        }
        run(List.of("apt-get", "update", "-qq"), Duration.ofMinutes(5));
        run(
                List.of("apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium", "chromium-driver"),
                Duration.ofMinutes(10));
        if (!Files.isExecutable(DRIVER)) {
            throw new IllegalStateException("apt-get ran but " + DRIVER + " is still missing");
        }
    }

    private static void run(List<String> command, Duration timeout) {
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            p.getOutputStream().close();
            if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " took longer than " + timeout);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited with " + p.exitValue()
                        + " (the browser tests install Chromium as root, as CI runs)");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while installing Chromium", e);
        }
    }

    /**
     * @param profile an empty directory for the browser profile
     * @return a headless Chromium driven by the Debian chromedriver
     */
    static ChromeDriver start(Path profile) {
        ensureInstalled();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BROWSER.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1400,900",
                "--user-data-dir=" + profile.toAbsolutePath());
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(DRIVER.toString()))
                .usingAnyFreePort()
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
        return driver;
    }
}
