package dev.durablestore.tck;

/** Creates a {@link StoreHarness} on a fresh, empty database for each contract test. */
@FunctionalInterface
public interface StoreHarnessFactory {

    /**
     * @param clock the clock the harness's stores must read
     * @return a harness on a new empty database
     */
    StoreHarness create(TestClock clock);
}
