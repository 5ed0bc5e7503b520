package dev.durablestore.r2dbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Parameters bound by name: the text numbers them, the values follow the numbers, a gap fails. */
class NamedStatementTest {

    private static NamedStatement twoParameters() {
        NamedStatement.Builder p = NamedStatement.builder(PayloadForm.BYTEA);
        return p.build("SELECT " + p.marker("first") + ", " + p.marker("second") + ", " + p.marker("first"));
    }

    @Test
    void a_name_used_twice_is_one_parameter() {
        // when a statement uses "first" twice
        NamedStatement s = twoParameters();

        // then it has one marker for it
        assertThat(s.sql()).isEqualTo("SELECT $1, $2, $1");
    }

    @Test
    void values_are_bound_in_marker_order_whatever_order_they_are_given() {
        // given the values in the other order
        NamedStatement.Arguments args = new NamedStatement.Arguments();
        args.put("second", 2);
        args.put("first", 1);

        // then they bind as $1, $2
        assertThat(twoParameters().bind(args)).containsExactly(1, 2);
    }

    @Test
    void a_parameter_without_a_value_fails_naming_it() {
        NamedStatement.Arguments args = new NamedStatement.Arguments();
        args.put("first", 1);

        assertThatThrownBy(() -> twoParameters().bind(args))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("parameter second ($2) has no value");
    }

    @Test
    void a_value_for_no_parameter_fails_naming_it() {
        NamedStatement.Arguments args = new NamedStatement.Arguments();
        args.put("first", 1);
        args.put("second", 2);
        args.put("third", 3);

        assertThatThrownBy(() -> twoParameters().bind(args))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no parameter [third]");
    }

    @Test
    void a_value_given_twice_fails() {
        NamedStatement.Arguments args = new NamedStatement.Arguments();
        args.put("first", 1);

        assertThatThrownBy(() -> args.put("first", 2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("first is given twice");
    }

    @Test
    void payloads_travel_as_text_only_when_every_payload_is_ascii_without_nul() {
        NamedStatement.Arguments ascii = new NamedStatement.Arguments();
        ascii.putPayload("a", "{\"k\":1}".getBytes(StandardCharsets.US_ASCII));
        ascii.putPayload("b", new byte[0]);
        NamedStatement.Arguments binary = new NamedStatement.Arguments();
        binary.putPayload("a", "{}".getBytes(StandardCharsets.US_ASCII));
        binary.putPayload("b", new byte[] {'x', 0});

        assertThat(ascii.form()).isEqualTo(PayloadForm.TEXT);
        assertThat(binary.form()).isEqualTo(PayloadForm.BYTEA);
    }

    @Test
    void a_payload_binds_as_the_form_of_its_statement() {
        byte[] bytes = "{}".getBytes(StandardCharsets.US_ASCII);
        for (PayloadForm form : PayloadForm.values()) {
            NamedStatement.Builder p = NamedStatement.builder(form);
            NamedStatement s = p.build("SELECT " + form.bytes(p.marker("payload")));
            NamedStatement.Arguments args = new NamedStatement.Arguments();
            args.putPayload("payload", bytes);

            Object bound = s.bind(args)[0];

            if (form == PayloadForm.TEXT) {
                assertThat(s.sql()).isEqualTo("SELECT (SELECT convert_to($1::text, 'UTF8'))");
                assertThat(bound).isEqualTo("{}");
            } else {
                assertThat(s.sql()).isEqualTo("SELECT $1::bytea");
                assertThat(bound).isSameAs(bytes);
            }
        }
    }

    @Test
    void a_payload_that_is_not_ascii_never_binds_as_text() {
        NamedStatement.Builder p = NamedStatement.builder(PayloadForm.TEXT);
        NamedStatement s = p.build("SELECT " + PayloadForm.TEXT.bytes(p.marker("payload")));
        NamedStatement.Arguments args = new NamedStatement.Arguments();
        args.putPayload("payload", new byte[] {(byte) 0xC3, (byte) 0xA9});

        assertThatThrownBy(() -> s.bind(args))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("payload payload is not ASCII");
    }
}
