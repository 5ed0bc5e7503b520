package dev.durablestore.api.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.OutboxRow;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The text form of a row's trace context: trace fields only, never baggage (O59). */
class TraceCarrierTest {

    @Test
    void keeps_the_trace_fields_in_order_and_round_trips_them() {
        Map<String, String> injected = new LinkedHashMap<>();
        injected.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        injected.put("tracestate", "vendor=opaque,other=x");

        String text = TraceCarrier.encode(injected);

        assertThat(text).isEqualTo("traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\n"
                + "tracestate=vendor=opaque,other=x");
        assertThat(TraceCarrier.decode(text)).containsExactlyEntriesOf(injected);
    }

    @Test
    void leaves_out_baggage_other_remote_fields_and_values_that_break_lines() {
        Map<String, String> injected = new LinkedHashMap<>();
        injected.put("baggage", "user.email=someone@example.com");
        injected.put("x-user-id", "42");
        injected.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        injected.put("tracestate", "broken\nvalue");
        injected.put("X-B3-TraceId", "80f198ee56343ba864fe8b2a57d3eff7");

        assertThat(TraceCarrier.decode(TraceCarrier.encode(injected))).containsOnlyKeys("traceparent", "X-B3-TraceId");
    }

    @Test
    void nothing_to_keep_is_no_context_and_an_over_long_field_is_dropped() {
        assertThat(TraceCarrier.encode(Map.of("baggage", "a=b"))).isNull();
        assertThat(TraceCarrier.encode(Map.of("tracestate", "x".repeat(OutboxRow.MAX_TRACE_CONTEXT)))).isNull();
        assertThat(TraceCarrier.decode(null)).isEmpty();
        assertThat(TraceCarrier.decode("not a field\n=no name")).isEmpty();
    }
}
