package dev.durablestore.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.RetentionPolicy;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Console options are checked when built: a value out of range fails with the store's
 * {@link InvalidArgumentException} naming the option, and the options it was copied from stay as
 * they were.
 */
class ConsoleOptionsTest {

    @Test
    void every_option_out_of_range_is_refused_naming_it() {
        ConsoleOptions defaults = ConsoleOptions.defaults();

        assertRefused(() -> defaults.withPreviewBytes(15), "previewBytes");
        assertRefused(() -> defaults.withPreviewBytes(65_537), "previewBytes");
        assertRefused(() -> defaults.withLease(Duration.ZERO), "lease");
        assertRefused(() -> defaults.withLease(null), "lease");
        assertRefused(() -> defaults.withCountCap(0), "countCap");
        assertRefused(() -> defaults.withCountTtl(Duration.ofSeconds(-1)), "countTtl");
        assertRefused(() -> defaults.withMaxBulk(10_001), "maxBulk");

        // the defaults are unchanged by the refused copies
        assertThat(defaults).isEqualTo(ConsoleOptions.defaults());
    }

    @Test
    void copies_change_one_option_and_the_defaults_stay_as_they_were() {
        ConsoleOptions defaults = ConsoleOptions.defaults();

        ConsoleOptions changed = defaults.withReadOnly(false).withMaxBulk(500).withLease(Duration.ofMinutes(2));

        assertThat(changed.readOnly()).isFalse();
        assertThat(changed.maxBulk()).isEqualTo(500);
        assertThat(changed.lease()).isEqualTo(Duration.ofMinutes(2));
        assertThat(changed.previewBytes()).isEqualTo(defaults.previewBytes());
        assertThat(defaults.readOnly()).isTrue();
        assertThat(changed)
                .isEqualTo(defaults.withLease(Duration.ofMinutes(2))
                        .withMaxBulk(500)
                        .withReadOnly(false))
                .hasSameHashCodeAs(defaults.withLease(Duration.ofMinutes(2))
                        .withMaxBulk(500)
                        .withReadOnly(false));
        assertThat(changed.toString()).startsWith("ConsoleOptions[readOnly=false, previews=true, ");
    }

    @Test
    void the_retention_policy_is_off_by_default_and_kept_by_copies() {
        RetentionPolicy policy = RetentionPolicy.closedFor(Duration.ofDays(7));

        ConsoleOptions on = ConsoleOptions.defaults().withRetention(policy);

        assertThat(ConsoleOptions.defaults().retention()).isNull();
        assertThat(on.retention()).isEqualTo(policy);
        assertThat(on.withMaxBulk(10).retention()).isEqualTo(policy);
        assertThat(on.withRetention(null)).isEqualTo(ConsoleOptions.defaults());
        assertThat(on.toString()).endsWith(", retention=" + policy + "]");
    }

    @Test
    void the_builder_refuses_a_null_store_naming_it() {
        assertRefused(() -> DurableConsole.builder(null), "store");
    }

    private static void assertRefused(Supplier<?> build, String option) {
        assertThatThrownBy(build::get)
                .isInstanceOf(InvalidArgumentException.class)
                .satisfies(e ->
                        assertThat(((InvalidArgumentException) e).argument()).isEqualTo(option));
    }
}
