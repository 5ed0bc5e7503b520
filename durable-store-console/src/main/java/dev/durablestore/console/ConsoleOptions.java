package dev.durablestore.console;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxLeaseReaper;
import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.RetentionPolicy;
import java.time.Duration;
import java.util.function.Consumer;

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

    /** The smallest {@link #previewBytes()}. */
    public static final int MIN_PREVIEW_BYTES = 16;

    /** The largest {@link #previewBytes()}. */
    public static final int MAX_PREVIEW_BYTES = 65_536;

    /** The largest {@link #maxBulk()}. */
    public static final int MAX_BULK_LIMIT = 10_000;

    private static final ConsoleOptions DEFAULTS = new Draft().build();

    private final Settings settings;

    private ConsoleOptions(Settings settings) {
        this.settings = settings;
    }

    /**
     * Every option, checked whenever options are built; its {@code equals}, {@code hashCode} and
     * {@code toString} are the options'.
     */
    private record Settings(
            boolean readOnly,
            boolean previews,
            int previewBytes,
            Duration lease,
            int countCap,
            Duration countTtl,
            int maxBulk,
            RetentionPolicy retention) {

        Settings {
            InvalidArgumentException.requireBetween(previewBytes, MIN_PREVIEW_BYTES, MAX_PREVIEW_BYTES, "previewBytes");
            InvalidArgumentException.requirePositive(lease, "lease");
            InvalidArgumentException.requireBetween(countCap, 1, OutboxQuery.MAX_COUNT_CAP, "countCap");
            InvalidArgumentException.requireNonNegative(countTtl, "countTtl");
            InvalidArgumentException.requireBetween(maxBulk, 1, MAX_BULK_LIMIT, "maxBulk");
        }
    }

    /**
     * The options being changed: the one way options are copied. Starts from the defaults or from
     * options; {@link #build()} checks the whole.
     */
    private static final class Draft {
        private boolean readOnly = true;
        private boolean previews = true;
        private int previewBytes = 2048;
        private Duration lease = OutboxLeaseReaper.DEFAULT_LEASE;
        private int countCap = 100_000;
        private Duration countTtl = Duration.ofSeconds(2);
        private int maxBulk = 1000;
        private RetentionPolicy retention;

        private Draft() {}

        private Draft(Settings s) {
            readOnly = s.readOnly();
            previews = s.previews();
            previewBytes = s.previewBytes();
            lease = s.lease();
            countCap = s.countCap();
            countTtl = s.countTtl();
            maxBulk = s.maxBulk();
            retention = s.retention();
        }

        private ConsoleOptions build() {
            return new ConsoleOptions(
                    new Settings(readOnly, previews, previewBytes, lease, countCap, countTtl, maxBulk, retention));
        }
    }

    /** @return a checked copy of these options with {@code change} made to them */
    private ConsoleOptions with(Consumer<Draft> change) {
        Draft draft = new Draft(settings);
        change.accept(draft);
        return draft.build();
    }

    /**
     * @return read-only, previews of 2 KiB, the lease reaper's default lease (5 min), 100,000 rows
     *     counted per status, counts kept 2 s, bulk 1,000, no retention backlog (retention off)
     */
    public static ConsoleOptions defaults() {
        return DEFAULTS;
    }

    /** @return true (the default) when the console offers and accepts no action at all */
    public boolean readOnly() {
        return settings.readOnly();
    }

    /** @return false when every payload (row inputs, event bodies) is hidden and only sizes are shown */
    public boolean previews() {
        return settings.previews();
    }

    /** @return the most bytes of one payload shown, {@value #MIN_PREVIEW_BYTES} to {@value #MAX_PREVIEW_BYTES} */
    public int previewBytes() {
        return settings.previewBytes();
    }

    /** @return the age past which a claim counts as stuck (the lease reaper's lease) */
    public Duration lease() {
        return settings.lease();
    }

    /** @return the most rows counted per status by one overview refresh (larger counts show as "≥ cap") */
    public int countCap() {
        return settings.countCap();
    }

    /** @return how long overview counts are reused before they are counted again */
    public Duration countTtl() {
        return settings.countTtl();
    }

    /** @return the most rows one bulk action or bulk count touches, 1 to {@value #MAX_BULK_LIMIT} */
    public int maxBulk() {
        return settings.maxBulk();
    }

    /**
     * @return the application's retention policy, whose backlog the overview shows (read with the
     *     counts, at most once per {@link #countTtl()}), or {@code null} (the default) when
     *     retention is off and the store keeps every workflow
     */
    public RetentionPolicy retention() {
        return settings.retention();
    }

    /**
     * @param value false to enable actions (the host's {@link ConsoleAuthorizer} then decides each)
     * @return a copy with the setting
     */
    public ConsoleOptions withReadOnly(boolean value) {
        return with(d -> d.readOnly = value);
    }

    /**
     * @param value false to hide payloads
     * @return a copy with the setting
     */
    public ConsoleOptions withPreviews(boolean value) {
        return with(d -> d.previews = value);
    }

    /**
     * @param value the most bytes of one payload shown, {@value #MIN_PREVIEW_BYTES} to
     *     {@value #MAX_PREVIEW_BYTES}
     * @return a copy with the preview size set
     * @throws InvalidArgumentException naming {@code previewBytes} when out of range
     */
    public ConsoleOptions withPreviewBytes(int value) {
        return with(d -> d.previewBytes = value);
    }

    /**
     * @param value claims older than this count as stuck; positive
     * @return a copy with the lease set
     * @throws InvalidArgumentException naming {@code lease} when null or not positive
     */
    public ConsoleOptions withLease(Duration value) {
        return with(d -> d.lease = value);
    }

    /**
     * @param value the most rows counted per status by one overview refresh, 1 to
     *     {@value OutboxQuery#MAX_COUNT_CAP}
     * @return a copy with the count cap set
     * @throws InvalidArgumentException naming {@code countCap} when out of range
     */
    public ConsoleOptions withCountCap(int value) {
        return with(d -> d.countCap = value);
    }

    /**
     * @param value how long overview counts are reused; zero or positive
     * @return a copy with the count cache time set
     * @throws InvalidArgumentException naming {@code countTtl} when null or negative
     */
    public ConsoleOptions withCountTtl(Duration value) {
        return with(d -> d.countTtl = value);
    }

    /**
     * @param value the most rows one bulk action or bulk count touches, 1 to {@value #MAX_BULK_LIMIT}
     * @return a copy with the bulk limit set
     * @throws InvalidArgumentException naming {@code maxBulk} when out of range
     */
    public ConsoleOptions withMaxBulk(int value) {
        return with(d -> d.maxBulk = value);
    }

    /**
     * @param value the retention policy the application sweeps with ({@code RetentionSweeper}), so
     *     the overview shows its backlog: the closed workflows overdue, those held by live rows and
     *     the age of the oldest ({@code OperatorStore.retentionBacklog}, which reads every closed
     *     workflow, hence once per {@link #countTtl()} at most); {@code null} when retention is
     *     off
     * @return a copy with the retention policy set
     */
    public ConsoleOptions withRetention(RetentionPolicy value) {
        return with(d -> d.retention = value);
    }

    /** @return true when {@code o} holds the same options */
    @Override
    public boolean equals(Object o) {
        return o instanceof ConsoleOptions c && settings.equals(c.settings);
    }

    @Override
    public int hashCode() {
        return settings.hashCode();
    }

    /** @return every option, as {@code ConsoleOptions[readOnly=…, previews=…, …]} */
    @Override
    public String toString() {
        return "ConsoleOptions"
                + settings.toString().substring(Settings.class.getSimpleName().length());
    }
}
