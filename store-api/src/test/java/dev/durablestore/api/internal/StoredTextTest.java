package dev.durablestore.api.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.TimerId;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoredTextTest {

    private static final int MAX = StoredText.MAX_UTF8_BYTES;

    @Test
    void X10_storable_texts_pass_unchanged_and_null_passes() {
        // given texts of exactly the limit in 1-, 2-, 3- and 4-byte characters, a surrogate pair and null
        List<String> fine = List.of(
                "a".repeat(MAX),
                "\u00E9".repeat(MAX / 2),
                "\u20AC".repeat(MAX / 3) + "x",
                "\uD83D\uDE00".repeat(MAX / 4),
                "k-\uD83D\uDE00",
                "\uFFFF",
                "");
        // when checked, then each is returned as given
        for (String t : fine) {
            assertThat(StoredText.require(t, "arg")).isSameAs(t);
            assertThat(StoredText.storable(t)).isTrue();
        }
        assertThat(StoredText.require(null, "arg")).isNull();
    }

    @Test
    void X10_nul_lone_surrogates_and_one_byte_too_many_are_refused_naming_the_argument() {
        // given a NUL, a lone high and low surrogate (also reversed pairs and at the end), and one byte too many
        List<String> bad = List.of(
                "\u0000",
                "a\u0000b",
                "\uD800",
                "\uDC00",
                "x\uD83D",
                "\uDE00\uD83D",
                "a".repeat(MAX + 1),
                "\u20AC".repeat(342),
                "\uD83D\uDE00".repeat(MAX / 4) + "a");
        for (String t : bad) {
            // when checked, then it is refused with the argument named
            assertThat(StoredText.storable(t)).as("storable(%s)", t).isFalse();
            assertThatThrownBy(() -> StoredText.require(t, "rows[0].namespace"))
                    .isInstanceOf(InvalidArgumentException.class)
                    .satisfies(e -> assertThat(((InvalidArgumentException) e).argument())
                            .isEqualTo("rows[0].namespace"));
        }
    }

    @Test
    void X10_a_named_timer_is_checked_by_its_name_and_an_anonymous_one_passes() {
        assertThat(StoredText.timerIdText(TimerId.named("t"), "timerId")).isEqualTo("timer:named:t");
        assertThat(StoredText.timerIdText(TimerId.anonymous(3), "timerId")).isEqualTo("timer:anonymous:3");
        assertThatThrownBy(() -> StoredText.timerIdText(TimerId.named("t\uDC00"), "timerId"))
                .isInstanceOf(InvalidArgumentException.class)
                .satisfies(e ->
                        assertThat(((InvalidArgumentException) e).argument()).isEqualTo("timerId.name"));
        assertThatThrownBy(() -> StoredText.timerIdText(null, "timerId")).isInstanceOf(InvalidArgumentException.class);
    }

    @Test
    void O7_scopes_with_unstorable_routes_admit_no_row_and_an_unstorable_node_pins_none() {
        assertThat(StoredText.admitsNoStoredRow(null)).isFalse();
        assertThat(StoredText.admitsNoStoredRow(ClaimScope.of("ns", "q"))).isFalse();
        assertThat(StoredText.admitsNoStoredRow(ClaimScope.of("ns\uDC00", "q"))).isTrue();
        assertThat(StoredText.admitsNoStoredRow(ClaimScope.of("ns", "q\u0000"))).isTrue();
        ClaimScope pinned = new ClaimScope("ns", "q", "n");
        assertThat(StoredText.matchable(pinned)).isSameAs(pinned);
        assertThat(StoredText.matchable(new ClaimScope("ns", "q", "n\uD800"))).isEqualTo(ClaimScope.of("ns", "q"));
        assertThat(StoredText.matchable(null)).isNull();
    }
}
