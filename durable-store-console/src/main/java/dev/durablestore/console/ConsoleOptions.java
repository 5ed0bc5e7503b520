package dev.durablestore.console;

import dev.durablestore.api.InvalidArgumentException;
import java.time.Duration;
import java.util.Objects;

/**
 * How the console behaves; {@link #defaults()} is read-only with previews on. Immutable and
 * validated when built: each {@code with*} method returns a checked copy and leaves this one
 * unchanged, so its result must be used (a {@code with*} call as a statement does nothing; Error
 * Prone reports it). A value out of range fails with {@link InvalidArgumentException} naming the
 * option.
 *
 * <pre>{@code
 * ConsoleOptions options = ConsoleOptions.defaults().withReadOnly(false).withMaxBulk(500);
 * }</pre>
 */
public final class ConsoleOptions {

    private static final ConsoleOptions DEFAULTS =
            new ConsoleOptions(true, true, 2048, Duration.ofMinutes(5), 100_000, Duration.ofSeconds(2), 1000);

    private final boolean readOnly;
    private final boolean previews;
    private final int previewBytes;
    private final Duration lease;
    private final int countCap;
    private final Duration countTtl;
    private final int maxBulk;

    private ConsoleOptions(
            boolean readOnly,
            boolean previews,
            int previewBytes,
            Duration lease,
            int countCap,
            Duration countTtl,
            int maxBulk) {
        if (previewBytes < 16 || previewBytes > 65_536) {
            throw new InvalidArgumentException("previewBytes", "must be between 16 and 65536, was " + previewBytes);
        }
        if (lease == null || lease.isNegative() || lease.isZero()) {
            throw new InvalidArgumentException("lease", "must be positive, was " + lease);
        }
        if (countCap < 1 || countCap > 10_000_000) {
            throw new InvalidArgumentException("countCap", "must be between 1 and 10000000, was " + countCap);
        }
        if (countTtl == null || countTtl.isNegative()) {
            throw new InvalidArgumentException("countTtl", "must be zero or positive, was " + countTtl);
        }
        if (maxBulk < 1 || maxBulk > 10_000) {
            throw new InvalidArgumentException("maxBulk", "must be between 1 and 10000, was " + maxBulk);
        }
        this.readOnly = readOnly;
        this.previews = previews;
        this.previewBytes = previewBytes;
        this.lease = lease;
        this.countCap = countCap;
        this.countTtl = countTtl;
        this.maxBulk = maxBulk;
    }

    /** @return read-only, previews of 2 KiB, lease 5 min, 100,000 rows counted per status, counts kept 2 s, bulk 1,000 */
    public static ConsoleOptions defaults() {
        return DEFAULTS;
    }

    /** @return true (the default) when the console offers and accepts no action at all */
    public boolean readOnly() {
        return readOnly;
    }

    /** @return false when every payload (row inputs, event bodies) is hidden and only sizes are shown */
    public boolean previews() {
        return previews;
    }

    /** @return the most bytes of one payload shown, 16 to 65,536 */
    public int previewBytes() {
        return previewBytes;
    }

    /** @return the age past which a claim counts as stuck (the lease reaper's lease) */
    public Duration lease() {
        return lease;
    }

    /** @return the most rows counted per status by one overview refresh (larger counts show as "≥ cap") */
    public int countCap() {
        return countCap;
    }

    /** @return how long overview counts are reused before they are counted again */
    public Duration countTtl() {
        return countTtl;
    }

    /** @return the most rows one bulk action or bulk count touches, 1 to 10,000 */
    public int maxBulk() {
        return maxBulk;
    }

    /**
     * @param value false to enable actions (the host's {@link ConsoleAuthorizer} then decides each)
     * @return a copy with the setting
     */
    public ConsoleOptions withReadOnly(boolean value) {
        return new ConsoleOptions(value, previews, previewBytes, lease, countCap, countTtl, maxBulk);
    }

    /**
     * @param value false to hide payloads
     * @return a copy with the setting
     */
    public ConsoleOptions withPreviews(boolean value) {
        return new ConsoleOptions(readOnly, value, previewBytes, lease, countCap, countTtl, maxBulk);
    }

    /**
     * @param value the most bytes of one payload shown, 16 to 65,536
     * @return a copy with the preview size set
     * @throws InvalidArgumentException naming {@code previewBytes} when out of range
     */
    public ConsoleOptions withPreviewBytes(int value) {
        return new ConsoleOptions(readOnly, previews, value, lease, countCap, countTtl, maxBulk);
    }

    /**
     * @param value claims older than this count as stuck; positive
     * @return a copy with the lease set
     * @throws InvalidArgumentException naming {@code lease} when null or not positive
     */
    public ConsoleOptions withLease(Duration value) {
        return new ConsoleOptions(readOnly, previews, previewBytes, value, countCap, countTtl, maxBulk);
    }

    /**
     * @param value the most rows counted per status by one overview refresh, 1 to 10,000,000
     * @return a copy with the count cap set
     * @throws InvalidArgumentException naming {@code countCap} when out of range
     */
    public ConsoleOptions withCountCap(int value) {
        return new ConsoleOptions(readOnly, previews, previewBytes, lease, value, countTtl, maxBulk);
    }

    /**
     * @param value how long overview counts are reused; zero or positive
     * @return a copy with the count cache time set
     * @throws InvalidArgumentException naming {@code countTtl} when null or negative
     */
    public ConsoleOptions withCountTtl(Duration value) {
        return new ConsoleOptions(readOnly, previews, previewBytes, lease, countCap, value, maxBulk);
    }

    /**
     * @param value the most rows one bulk action or bulk count touches, 1 to 10,000
     * @return a copy with the bulk limit set
     * @throws InvalidArgumentException naming {@code maxBulk} when out of range
     */
    public ConsoleOptions withMaxBulk(int value) {
        return new ConsoleOptions(readOnly, previews, previewBytes, lease, countCap, countTtl, value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConsoleOptions c
                && readOnly == c.readOnly
                && previews == c.previews
                && previewBytes == c.previewBytes
                && lease.equals(c.lease)
                && countCap == c.countCap
                && countTtl.equals(c.countTtl)
                && maxBulk == c.maxBulk;
    }

    @Override
    public int hashCode() {
        return Objects.hash(readOnly, previews, previewBytes, lease, countCap, countTtl, maxBulk);
    }

    @Override
    public String toString() {
        return "ConsoleOptions[readOnly=" + readOnly + ", previews=" + previews + ", previewBytes=" + previewBytes
                + ", lease=" + lease + ", countCap=" + countCap + ", countTtl=" + countTtl + ", maxBulk=" + maxBulk
                + "]";
    }
}
