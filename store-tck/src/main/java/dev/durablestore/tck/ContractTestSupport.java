package dev.durablestore.tck;

import dev.durablestore.api.ReactiveStore;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of every contract test class: a fresh harness and store per test, a settable clock, and a
 * timeout for blocking assertions. Subclasses name the backend through {@link #harnessFactory()}.
 */
public abstract class ContractTestSupport {

    /** The bound on every blocking wait in the kit, so a hang fails instead of stalling CI. */
    protected static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** The clock the store reads; move it instead of sleeping. */
    protected TestClock clock;
    /** The harness of this test's database. */
    protected StoreHarness harness;
    /** The store under test, opened on a fresh database. */
    protected ReactiveStore store;

    /** @return the backend's harness factory */
    protected abstract StoreHarnessFactory harnessFactory();

    @BeforeEach
    void openStore() {
        clock = TestClock.atDefaultStart();
        harness = harnessFactory().create(clock);
        store = harness.open();
    }

    @AfterEach
    void closeStore() {
        if (harness != null) {
            harness.close();
        }
    }
}
