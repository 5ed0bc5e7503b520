package dev.durablestore.console;

import java.time.Duration;

/**
 * How the console behaves; {@link #defaults()} is read-only with previews on.
 *
 * @param readOnly true (the default) offers and accepts no action at all
 * @param previews false hides every payload (row inputs, event bodies): only sizes are shown
 * @param previewBytes the most bytes of one payload shown, 16 to 65,536
 * @param lease claims older than this count as stuck (the lease reaper's lease)
 * @param countCap the most rows counted per status by one overview refresh (larger counts show as "≥ cap")
 * @param countTtl how long overview counts are reused before they are counted again
 * @param maxBulk the most rows one bulk action or bulk count touches, 1 to 10,000
 */
public record ConsoleOptions(
        boolean readOnly,
        boolean previews,
        int previewBytes,
        Duration lease,
        int countCap,
        Duration countTtl,
        int maxBulk) {

    /** Checks the values. */
    public ConsoleOptions {
        if (previewBytes < 16 || previewBytes > 65_536) {
            throw new IllegalArgumentException("previewBytes must be between 16 and 65536, was " + previewBytes);
        }
        if (lease == null || lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("lease must be positive, was " + lease);
        }
        if (countCap < 1 || countCap > 10_000_000) {
            throw new IllegalArgumentException("countCap must be between 1 and 10000000, was " + countCap);
        }
        if (countTtl == null || countTtl.isNegative()) {
            throw new IllegalArgumentException("countTtl must be zero or positive, was " + countTtl);
        }
        if (maxBulk < 1 || maxBulk > 10_000) {
            throw new IllegalArgumentException("maxBulk must be between 1 and 10000, was " + maxBulk);
        }
    }

    /** @return read-only, previews of 2 KiB, lease 5 min, 100,000 rows counted per status, counts kept 2 s, bulk 1,000 */
    public static ConsoleOptions defaults() {
        return new ConsoleOptions(true, true, 2048, Duration.ofMinutes(5), 100_000, Duration.ofSeconds(2), 1000);
    }

    /** @param value false to enable actions @return a copy */
    public ConsoleOptions withReadOnly(boolean value) {
        return new ConsoleOptions(value, previews, previewBytes, lease, countCap, countTtl, maxBulk);
    }

    /** @param value false to hide payloads @return a copy */
    public ConsoleOptions withPreviews(boolean value) {
        return new ConsoleOptions(readOnly, value, previewBytes, lease, countCap, countTtl, maxBulk);
    }

    /** @param value the preview size @return a copy */
    public ConsoleOptions withPreviewBytes(int value) {
        return new ConsoleOptions(readOnly, previews, value, lease, countCap, countTtl, maxBulk);
    }

    /** @param value the lease @return a copy */
    public ConsoleOptions withLease(Duration value) {
        return new ConsoleOptions(readOnly, previews, previewBytes, value, countCap, countTtl, maxBulk);
    }

    /** @param value the count cap @return a copy */
    public ConsoleOptions withCountCap(int value) {
        return new ConsoleOptions(readOnly, previews, previewBytes, lease, value, countTtl, maxBulk);
    }

    /** @param value the count cache time @return a copy */
    public ConsoleOptions withCountTtl(Duration value) {
        return new ConsoleOptions(readOnly, previews, previewBytes, lease, countCap, value, maxBulk);
    }

    /** @param value the bulk limit @return a copy */
    public ConsoleOptions withMaxBulk(int value) {
        return new ConsoleOptions(readOnly, previews, previewBytes, lease, countCap, countTtl, value);
    }
}
