package dev.durablestore.micrometer.observation;

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

        assertThat(text)
                .isEqualTo("traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\n"
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
        assertThat(TraceCarrier.encode(Map.of("tracestate", "x".repeat(OutboxRow.MAX_TRACE_CONTEXT))))
                .isNull();
        assertThat(TraceCarrier.decode(null)).isEmpty();
        assertThat(TraceCarrier.decode("not a field\n=no name")).isEmpty();
    }

    @Test
    void reads_the_staging_span_ids_from_w3c_and_b3_forms() {
        String trace = "0af7651916cd43dd8448eb211c80319c";
        String span = "b7ad6b7169203331";

        assertThat(TraceCarrier.ids("traceparent=00-" + trace + "-" + span + "-01\ntracestate=a=b"))
                .isEqualTo(new TraceCarrier.Ids(trace, span, true));
        assertThat(TraceCarrier.ids("traceparent=00-" + trace + "-" + span + "-00"))
                .isEqualTo(new TraceCarrier.Ids(trace, span, false));
        assertThat(TraceCarrier.ids("traceparent=01-" + trace + "-" + span + "-01-future"))
                .isEqualTo(new TraceCarrier.Ids(trace, span, true));
        assertThat(TraceCarrier.ids("b3=" + trace + "-" + span + "-d"))
                .isEqualTo(new TraceCarrier.Ids(trace, span, true));
        assertThat(TraceCarrier.ids("b3=" + trace + "-" + span)).isEqualTo(new TraceCarrier.Ids(trace, span, null));
        // a 64-bit B3 trace id is widened with leading zeros
        assertThat(TraceCarrier.ids("X-B3-TraceId=8448eb211c80319c\nX-B3-SpanId=" + span + "\nX-B3-Sampled=0"))
                .isEqualTo(new TraceCarrier.Ids("00000000000000008448eb211c80319c", span, false));
    }

    @Test
    void malformed_or_missing_ids_are_none() {
        String trace = "0af7651916cd43dd8448eb211c80319c";
        String span = "b7ad6b7169203331";

        assertThat(TraceCarrier.ids(null)).isNull();
        assertThat(TraceCarrier.ids("tracestate=a=b")).isNull();
        assertThat(TraceCarrier.ids("garbage")).isNull();
        assertThat(TraceCarrier.ids("traceparent=ff-" + trace + "-" + span + "-01"))
                .isNull();
        assertThat(TraceCarrier.ids("traceparent=00-" + trace + "-" + span + "-01-extra"))
                .isNull();
        assertThat(TraceCarrier.ids("traceparent=00-" + trace.toUpperCase() + "-" + span + "-01"))
                .isNull();
        assertThat(TraceCarrier.ids("traceparent=00-" + "0".repeat(32) + "-" + span + "-01"))
                .isNull();
        assertThat(TraceCarrier.ids("traceparent=00-" + trace + "-" + "0".repeat(16) + "-01"))
                .isNull();
        assertThat(TraceCarrier.ids("traceparent=00-" + trace + "-" + span + "-zz"))
                .isNull();
        assertThat(TraceCarrier.ids("traceparent=00-" + trace + "-" + span)).isNull();
        assertThat(TraceCarrier.ids("b3=1")).isNull();
        assertThat(TraceCarrier.ids("b3=" + trace + "-" + span + "-x")).isNull();
        assertThat(TraceCarrier.ids("b3=" + trace.substring(1) + "-" + span)).isNull();
        assertThat(TraceCarrier.ids("X-B3-TraceId=" + trace)).isNull();
    }
}
