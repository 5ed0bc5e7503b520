package dev.durablestore.core.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.SerializationException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class Rfc3339Test {

    private static final DateTimeFormatter REFERENCE =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'").withZone(ZoneOffset.UTC);

    @Test
    void S10_formats_fixed_width_utc_with_nine_fraction_digits() {
        assertThat(new String(Rfc3339.format(Instant.parse("2026-06-03T02:30:00Z"))))
                .isEqualTo("2026-06-03T02:30:00.000000000Z");
        assertThat(new String(Rfc3339.format(Instant.parse("2026-06-03T02:30:00.123456789Z"))))
                .isEqualTo("2026-06-03T02:30:00.123456789Z");
        assertThat(new String(Rfc3339.format(Instant.parse("0000-01-01T00:00:00Z"))))
                .isEqualTo("0000-01-01T00:00:00.000000000Z");
        assertThat(new String(Rfc3339.format(Instant.parse("9999-12-31T23:59:59.999999999Z"))))
                .isEqualTo("9999-12-31T23:59:59.999999999Z");
        assertThat(new String(Rfc3339.format(Instant.parse("1969-12-31T23:59:59.000000001Z"))))
                .isEqualTo("1969-12-31T23:59:59.000000001Z");
    }

    @Test
    void S13_random_instants_format_and_parse_back_exactly_and_agree_with_java_time() {
        Random random = new Random(42);
        long min = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
        long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
        for (int i = 0; i < 20_000; i++) {
            Instant at = Instant.ofEpochSecond(
                    min + (long) (random.nextDouble() * (max - min)), random.nextInt(1_000_000_000));
            String text = new String(Rfc3339.format(at));

            assertThat(Rfc3339.parse(text)).isEqualTo(at);
            assertThat(text).isEqualTo(REFERENCE.format(at));
        }
    }

    @Test
    void S15_instants_outside_four_digit_years_are_not_formatted() {
        assertThatThrownBy(() -> Rfc3339.format(Instant.MAX)).isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> Rfc3339.format(Instant.MIN)).isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> Rfc3339.format(Instant.parse("-0001-12-31T23:59:59.999999999Z")))
                .isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> Rfc3339.format(Instant.parse("+10000-01-01T00:00:00Z")))
                .isInstanceOf(SerializationException.class);
    }

    @ParameterizedTest
    @CsvSource({
        "2026-06-03T02:30:00Z, 2026-06-03T02:30:00Z",
        "2026-06-03T02:30:00.1Z, 2026-06-03T02:30:00.100Z",
        "2026-06-03T02:30:00.000000001Z, 2026-06-03T02:30:00.000000001Z",
        "2026-06-03T02:30:00.9999999999Z, 2026-06-03T02:30:00.999999999Z",
        "2026-06-03T04:30:00+02:00, 2026-06-03T02:30:00Z",
        "2026-06-03T00:00:00-02:30, 2026-06-03T02:30:00Z",
        "2026-06-03T02:30:00-00:00, 2026-06-03T02:30:00Z",
        "2026-06-03t02:30:00z, 2026-06-03T02:30:00Z",
        "2024-02-29T23:59:59.5+23:59, 2024-02-29T00:00:59.500Z",
        "0000-01-01T00:30:00+01:00, -0001-12-31T23:30:00Z",
        "9999-12-31T23:00:00-01:00, +10000-01-01T00:00:00Z"
    })
    void S12_parses_any_offset_and_normalises_to_utc(String text, String expected) {
        assertThat(Rfc3339.parse(text)).isEqualTo(Instant.parse(expected));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "2026-06-03T02:30:00",
                "2026-06-03T02:30:00.Z",
                "2026-06-03T02:30Z",
                "2026-06-03T2:30:00Z",
                "2026-6-03T02:30:00Z",
                "2026-00-03T02:30:00Z",
                "2026-06-00T02:30:00Z",
                "2026-06-31T02:30:00Z",
                "2025-02-29T02:30:00Z",
                "2026-06-03T02:30:60Z",
                "2026-06-03T02:30:00+02",
                "2026-06-03T02:30:00+02:0",
                "2026-06-03T02:30:00+02:00:00",
                "2026-06-03T02:30:00+02:60",
                "2026-06-03T02:30:00 +02:00",
                "2026-06-03T02:30:00UTC",
                "2026-06-03T02:30:00.1.2Z",
                "２026-06-03T02:30:00Z",
                "2026-06-03T02:30:0٠Z",
                "-2026-06-03T02:30:00Z"
            })
    void S12_rejects_text_that_is_not_rfc3339(String text) {
        assertThat(Rfc3339.parse(text)).isNull();
    }
}
