package dev.durablestore.r2dbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.internal.EventEncoder;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.core.internal.StepEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The statement of a round of grouped appends binds every parameter of its shape by name, whatever
 * the round holds (its SQL runs in the PostgreSQL kit and {@code PostgresGroupedAppendTest}).
 */
class GroupedAppendStatementTest {

    private static final WorkflowId W = WorkflowId.random();

    private static GroupedAppends.Append append(byte[] payload, boolean rows, boolean step) {
        List<EventEncoder.Encoded> events =
                List.of(new EventEncoder.Encoded(1, payload, 0L, "SignalReceived", true, "type", null));
        List<OutboxRowEncoder.Encoded> staged = rows
                ? List.of(new OutboxRowEncoder.Encoded(
                        OutboxRow.pending(W, 0, "work", Payload.json("{}"), Instant.EPOCH), payload, 0L, null))
                : List.of();
        List<StepEncoder.Settle> settles = step
                ? List.of(new StepEncoder.Settle(
                        "k", 7L, Settlement.Kind.RETRY, 2, 5L, null, "settles[0]", FailureReason.of("x"), 1, List.of()))
                : List.of();
        List<StepEncoder.Timer> timers = step ? List.of(new StepEncoder.Timer("t", null)) : List.of();
        return new GroupedAppends.Append("append", W.toString(), 0, events, staged, settles, timers);
    }

    @Test
    void every_kind_of_round_in_every_payload_form_binds_a_value_to_each_parameter() {
        byte[] json = "{}".getBytes(StandardCharsets.US_ASCII);
        byte[] binary = {1, 0, -1};
        for (byte[] payload : List.of(json, binary)) {
            for (GroupedAppends.Append a :
                    List.of(append(payload, false, false), append(payload, true, false), append(payload, true, true))) {
                // given a round of that kind
                List<GroupedAppends.Append> round = List.of(a, append(json, false, false));
                GroupedAppendStatement.Kind kind = GroupedAppendStatement.Kind.of(round);

                // when its arguments are put by name
                NamedStatement.Arguments args = GroupedAppendStatement.arguments(kind, round, 10L);
                NamedStatement statement = GroupedAppendStatement.statement(kind, args.form());

                // then they fill the statement's markers exactly, and the payloads travel as text
                // only when they are ASCII
                Object[] bound = statement.bind(args);
                assertThat(bound).doesNotContainNull();
                assertThat(statement.sql()).contains("$" + bound.length).doesNotContain("$" + (bound.length + 1));
                assertThat(args.form()).isEqualTo(payload == json ? PayloadForm.TEXT : PayloadForm.BYTEA);
            }
        }
    }

    @Test
    void the_kind_of_a_round_is_decided_by_its_steps_then_its_rows() {
        byte[] json = "{}".getBytes(StandardCharsets.US_ASCII);
        GroupedAppends.Append plain = append(json, false, false);
        GroupedAppends.Append withRows = append(json, true, false);
        GroupedAppends.Append step = append(json, true, true);

        assertThat(GroupedAppendStatement.Kind.of(List.of(plain, plain)))
                .isEqualTo(GroupedAppendStatement.Kind.APPENDS);
        assertThat(GroupedAppendStatement.Kind.of(List.of(plain, withRows)))
                .isEqualTo(GroupedAppendStatement.Kind.APPENDS_WITH_ROWS);
        assertThat(GroupedAppendStatement.Kind.of(List.of(plain, withRows, step)))
                .isEqualTo(GroupedAppendStatement.Kind.STEPS);
    }
}
