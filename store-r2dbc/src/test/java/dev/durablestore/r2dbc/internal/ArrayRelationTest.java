package dev.durablestore.r2dbc.internal;

import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.BIGINT;
import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.INT;
import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.PAYLOAD;
import static dev.durablestore.r2dbc.internal.ArrayRelation.Type.TEXT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One list of named columns gives a relation's SQL and its arguments. */
class ArrayRelationTest {

    private record Item(int n, String name, String body, Long at) {}

    private static final ArrayRelation<Item> ITEMS = ArrayRelation.<Item>named("it")
            .column("n", INT, Item::n)
            .column("name", TEXT, Item::name)
            .column("body", PAYLOAD, i -> i.body().getBytes(StandardCharsets.US_ASCII))
            .column("at", BIGINT, Item::at)
            .build();

    @Test
    void the_relation_declares_one_array_per_column_and_an_offset_and_length_for_its_payload() {
        NamedStatement.Builder p = NamedStatement.builder(PayloadForm.BYTEA);

        String unnest = ITEMS.unnest(p);
        String body = ITEMS.value("body", p);

        assertThat(unnest)
                .isEqualTo("unnest($1::int[], $2::text[], $3::int[], $4::int[], $5::bigint[]) "
                        + "AS it(n, name, off, len, at)");
        assertThat(body).isEqualTo("substring($6::bytea FROM it.off FOR it.len)");
        assertThat(ITEMS.values(List.of("at", "name"), p)).isEqualTo("it.at, it.name");
    }

    @Test
    void the_arguments_are_one_array_literal_per_column_and_the_payloads_end_to_end() {
        // given a statement reading the relation
        NamedStatement.Builder p = NamedStatement.builder(PayloadForm.TEXT);
        NamedStatement s = p.build("SELECT " + ITEMS.value("body", p) + " FROM " + ITEMS.unnest(p));
        NamedStatement.Arguments args = new NamedStatement.Arguments();

        // when two rows are put, one with a NULL
        ITEMS.put(List.of(new Item(7, "a", "{}", 1L), new Item(8, "b", "[1]", null)), args);

        // then each column is an array literal, the payloads one text, cut at offsets from 1
        assertThat(s.bind(args)).containsExactly("{}[1]", "{7,8}", "{\"a\",\"b\"}", "{1,3}", "{2,3}", "{1,NULL}");
    }

    @Test
    void text_is_always_quoted_with_quotes_and_backslashes_escaped_and_null_is_bare() {
        NamedStatement.Builder p = NamedStatement.builder(PayloadForm.BYTEA);
        NamedStatement s = p.build("SELECT * FROM " + ITEMS.unnest(p) + " " + ITEMS.value("body", p));
        NamedStatement.Arguments args = new NamedStatement.Arguments();
        List<String> names = List.of("a\"b", "back\\slash", "NULL", "", "{x, y}", "café ☕ 𝄞");
        List<Item> items = new java.util.ArrayList<>();
        for (String name : names) {
            items.add(new Item(0, name, "", 0L));
        }
        items.add(new Item(0, null, "", 0L));

        ITEMS.put(items, args);

        assertThat(s.bind(args)[1])
                .isEqualTo("{\"a\\\"b\",\"back\\\\slash\",\"NULL\",\"\",\"{x, y}\",\"café ☕ 𝄞\",NULL}");
    }

    @Test
    void a_value_of_another_type_than_its_column_fails_loudly() {
        ArrayRelation<Item> wrong =
                ArrayRelation.<Item>named("w").column("n", BIGINT, Item::n).build();

        assertThatThrownBy(() -> wrong.put(List.of(new Item(1, "a", "", null)), new NamedStatement.Arguments()))
                .isInstanceOf(ClassCastException.class);
    }

    @Test
    void a_row_alone_binds_typed_nulls_and_the_payload_bytes() {
        Object[] row = ITEMS.row(new Item(1, null, "{}", null));

        assertThat(row[0]).isEqualTo(1);
        assertThat(row[1]).isEqualTo(Sql.NULL_TEXT);
        assertThat(row[2]).isEqualTo("{}".getBytes(StandardCharsets.US_ASCII));
        assertThat(row[3]).isEqualTo(Sql.NULL_BIGINT);
    }

    @Test
    void a_relation_refuses_a_column_named_twice_and_a_second_payload() {
        assertThatThrownBy(() -> ArrayRelation.<Item>named("x")
                        .column("n", INT, Item::n)
                        .column("n", INT, Item::n)
                        .build())
                .hasMessageContaining("names column n twice");
        assertThatThrownBy(() -> ArrayRelation.<Item>named("x")
                        .column("a", PAYLOAD, i -> new byte[0])
                        .column("b", PAYLOAD, i -> new byte[0])
                        .build())
                .hasMessageContaining("two payload columns");
    }
}
