package dev.durablestore.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link FailureReason} and {@link AttemptFailure}: bounded, storable, equal by value (O66, O67). */
class FailureReasonTest {

    private static int utf8(String text) {
        return text == null ? 0 : text.getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void O66_a_message_alone_has_no_type_or_trace() {
        FailureReason r = FailureReason.of("the payment service answered 503");

        assertThat(r.message()).isEqualTo("the payment service answered 503");
        assertThat(r.type()).isNull();
        assertThat(r.trace()).isNull();
        assertThat(r)
                .isEqualTo(FailureReason.of("the payment service answered 503"))
                .hasSameHashCodeAs(FailureReason.of("the payment service answered 503"));
        assertThat(r.withType("http.503").type()).isEqualTo("http.503");
        assertThat(r.withTrace("line 1\nline 2").trace()).isEqualTo("line 1\nline 2");
        assertThat(r.withType("http.503")).isNotEqualTo(r);
    }

    @Test
    void O66_a_throwable_gives_its_class_message_and_trace_without_the_header_line() {
        IllegalStateException error =
                new IllegalStateException("ledger closed", new java.io.IOException("connection reset"));

        FailureReason r = FailureReason.of(error);

        assertThat(r.type()).isEqualTo("java.lang.IllegalStateException");
        assertThat(r.message()).isEqualTo("ledger closed");
        assertThat(r.trace())
                .startsWith("\tat ")
                .contains("FailureReasonTest.O66_a_throwable_gives_its_class_message_and_trace")
                .contains("\nCaused by: java.io.IOException: connection reset\n")
                .doesNotContain("java.lang.IllegalStateException: ledger closed");
        // at most 10 frames of each, then how many more
        String top = r.trace().substring(0, r.trace().indexOf("Caused by"));
        assertThat(top.lines().filter(l -> l.startsWith("\tat "))).hasSize(FailureReason.FRAMES_PER_THROWABLE);
        assertThat(top).containsPattern("\t\\.\\.\\. \\d+ more\n$");
        assertThat(r.toString()).startsWith("java.lang.IllegalStateException: ledger closed (trace: ");
    }

    @Test
    void O66_a_throwable_without_a_message_gives_an_empty_message() {
        FailureReason r = FailureReason.of(new NullPointerException());

        assertThat(r.message()).isEmpty();
        assertThat(r.type()).isEqualTo("java.lang.NullPointerException");
    }

    @Test
    void O66_long_texts_are_cut_at_character_boundaries_to_their_bounds() {
        String longMessage = "é".repeat(2000); // 4,000 bytes
        String longType = "T".repeat(1000);
        StringBuilder trace = new StringBuilder();
        for (int i = 0; i < 500; i++) {
            trace.append("\tat com.example.Service.call")
                    .append(i)
                    .append("(Service.java:")
                    .append(i)
                    .append(")\n");
        }

        FailureReason r = FailureReason.of(longMessage).withType(longType).withTrace(trace.toString());

        assertThat(utf8(r.type())).isLessThanOrEqualTo(FailureReason.MAX_TYPE_BYTES);
        assertThat(r.type()).endsWith(FailureReason.CUT).startsWith("TTT");
        assertThat(utf8(r.message())).isLessThanOrEqualTo(FailureReason.MAX_MESSAGE_BYTES);
        assertThat(r.message()).endsWith(FailureReason.CUT);
        assertThat(r.message().replace(FailureReason.CUT, "")).matches("é+");
        assertThat(utf8(r.type()) + utf8(r.message()) + utf8(r.trace())).isLessThanOrEqualTo(FailureReason.MAX_BYTES);
        assertThat(r.trace()).startsWith("\tat com.example.Service.call0(").endsWith("\n\t... (cut)");
        // whole lines only before the cut line
        List<String> lines = r.trace().lines().toList();
        assertThat(lines.subList(0, lines.size() - 1))
                .allMatch(l -> l.matches("\tat com\\.example\\.Service\\.call\\d+\\(Service\\.java:\\d+\\)"));
    }

    @Test
    void O66_X10_NUL_and_unpaired_surrogates_become_the_replacement_character_and_pairs_are_kept() {
        FailureReason r = FailureReason.of("a\0b\uD800c😀").withType("t\uDC00").withTrace("x\0");

        assertThat(r.message()).isEqualTo("a\uFFFDb\uFFFDc😀");
        assertThat(r.type()).isEqualTo("t\uFFFD");
        assertThat(r.trace()).isEqualTo("x\uFFFD");
    }

    @Test
    void O67_an_attempt_failure_numbers_attempts_from_1() {
        Instant t = Instant.parse("2026-01-02T03:04:05.123456789Z");
        AttemptFailure f = AttemptFailure.of(3, t, FailureReason.of("boom"));

        assertThat(f.attempt()).isEqualTo(3);
        assertThat(f.failedAt()).isEqualTo(t);
        assertThat(f.reason().message()).isEqualTo("boom");
        assertThat(f).isEqualTo(AttemptFailure.of(3, t, FailureReason.of("boom")));
        assertThat(f.toString()).isEqualTo("attempt 3 failed at " + t + ": boom");
        assertThatThrownBy(() -> AttemptFailure.of(0, t, FailureReason.of("boom")))
                .isInstanceOfSatisfying(
                        InvalidArgumentException.class,
                        e -> assertThat(e.argument()).isEqualTo("attempt"));
    }

    @Test
    void O66_a_row_has_no_failures_until_a_settle_records_one() {
        OutboxRow row =
                OutboxRow.pending(new WorkflowId(new java.util.UUID(0, 1)), 0, "a", Payload.json("{}"), Instant.EPOCH);

        assertThat(row.failures()).isEmpty();
        assertThat(row.lastFailure()).isNull();
        assertThat(row.withAttempt(2).failures()).isEmpty();
    }
}
