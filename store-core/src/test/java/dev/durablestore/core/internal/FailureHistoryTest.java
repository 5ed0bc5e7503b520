package dev.durablestore.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.AttemptFailure;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.SerializationException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stored form of a row's failures (O66), the same on every backend. */
class FailureHistoryTest {

    private static final long T = EpochNanos.of(Instant.parse("2026-03-04T05:06:07.123456789Z"), "t");

    @Test
    void O66_O67_a_failure_is_recorded_as_the_attempt_after_the_stored_one_and_reads_back_exactly() {
        // given a reason with every field, with text that needs escaping
        FailureReason reason = FailureReason.of("said \"no\"\n\ttwice ✓ 😀")
                .withType("com.example.PaymentDeclined")
                .withTrace("\tat a.B.c(B.java:1)\n\t... 3 more");

        // when it is appended to a row at attempt 2 (two earlier dispatches)
        String stored = FailureHistory.append(List.of(), 2, T, reason);

        // then it reads back as the failure of attempt 3, at the settle's instant
        assertThat(FailureHistory.decode(stored))
                .containsExactly(AttemptFailure.of(3, EpochNanos.toInstant(T), reason));
        assertThat(stored).startsWith("[{\"attempt\":3,\"at\":" + T + ",\"type\":\"com.example.PaymentDeclined\"");
    }

    @Test
    void O66_a_row_keeps_its_last_five_failures_oldest_first() {
        List<AttemptFailure> failures = List.of();
        for (int attempt = 0; attempt < 8; attempt++) {
            failures = FailureHistory.decode(
                    FailureHistory.append(failures, attempt, T + attempt, FailureReason.of("failure " + attempt)));
        }

        assertThat(failures).hasSize(OutboxRow.MAX_FAILURES);
        assertThat(failures).extracting(AttemptFailure::attempt).containsExactly(4, 5, 6, 7, 8);
        assertThat(failures)
                .extracting(f -> f.reason().message())
                .containsExactly("failure 3", "failure 4", "failure 5", "failure 6", "failure 7");
    }

    @Test
    void O66_no_failures_are_stored_as_NULL_and_a_type_or_trace_left_out_reads_as_none() {
        assertThat(FailureHistory.encode(List.of())).isNull();
        assertThat(FailureHistory.decode(null)).isEmpty();

        List<AttemptFailure> read =
                FailureHistory.decode("[{\"attempt\":1,\"at\":0,\"message\":\"m\",\"new\":[1,{}]}]");

        assertThat(read).containsExactly(AttemptFailure.of(1, Instant.EPOCH, FailureReason.of("m")));
    }

    @Test
    void O66_more_than_five_stored_failures_read_as_the_last_five() {
        List<String> items = new ArrayList<>();
        for (int i = 1; i <= 7; i++) {
            items.add("{\"attempt\":" + i + ",\"at\":" + i + ",\"message\":\"m" + i + "\"}");
        }

        List<AttemptFailure> read = FailureHistory.decode("[" + String.join(",", items) + "]");

        assertThat(read).extracting(AttemptFailure::attempt).containsExactly(3, 4, 5, 6, 7);
    }

    @Test
    void O66_stored_failures_that_do_not_decode_fail_naming_what_is_wrong_and_the_row() {
        assertThatThrownBy(() -> FailureHistory.decode("not json")).isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> FailureHistory.decode("{}"))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("expected an array of failures");
        assertThatThrownBy(() -> FailureHistory.decode("[{\"attempt\":0,\"at\":1,\"message\":\"m\"}]"))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("[0]");
        assertThatThrownBy(() -> FailureHistory.decode("[{\"attempt\":\"1\",\"at\":1,\"message\":\"m\"}]"))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("[0].attempt");
        assertThatThrownBy(() -> FailureHistory.decode("[] trailing")).isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> FailureHistory.appendStored("wf:1", "[", 0, T, FailureReason.of("x")))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("stored outbox row wf:1");
    }
}
