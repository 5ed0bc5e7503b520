package dev.durablestore.tck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A settable, thread-safe clock for contract tests: stores read {@code now} from it, tests move it
 * forward instead of sleeping.
 */
public final class TestClock extends Clock {

    private final AtomicReference<Instant> now;

    /** @param start the initial instant */
    public TestClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    /** @return a clock at 2026-06-03T00:00:00Z */
    public static TestClock atDefaultStart() {
        return new TestClock(Instant.parse("2026-06-03T00:00:00Z"));
    }

    /** @param instant the new current instant */
    public void set(Instant instant) {
        now.set(instant);
    }

    /**
     * @param duration how far to move forward
     * @return the new current instant
     */
    public Instant advance(Duration duration) {
        return now.updateAndGet(i -> i.plus(duration));
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("TestClock is always UTC");
    }
}
