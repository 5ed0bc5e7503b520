package dev.durablestore.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link Payload#json(String)} keeps its text exactly or refuses it: never a {@code '?'} in place of a character. */
class PayloadTextTest {

    @Test
    void a_lone_low_surrogate_is_refused_naming_the_argument() {
        // when a JSON payload is built from text holding a lone low surrogate
        // then it is refused instead of being stored with '?' in its place
        assertThatThrownBy(() -> Payload.json("{\"k\":\"a\uDC00\"}"))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("json")
                .hasMessageContaining("U+DC00");
    }

    @Test
    void a_high_surrogate_at_the_end_is_refused() {
        assertThatThrownBy(() -> Payload.json("\"\uD83D"))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("U+D83D");
    }

    @Test
    void a_surrogate_pair_is_kept_exactly() {
        // given text with an emoji (a surrogate pair)
        String json = "{\"k\":\"\uD83D\uDE00\"}";

        // when it becomes a payload
        // then it reads back exactly
        assertThat(Payload.json(json).asString()).isEqualTo(json);
    }
}
