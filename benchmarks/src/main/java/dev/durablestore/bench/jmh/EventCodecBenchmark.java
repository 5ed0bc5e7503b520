package dev.durablestore.bench.jmh;

import dev.durablestore.api.Payload;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.bench.Fixtures;
import dev.durablestore.core.codec.EventCodec;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the store spends encoding and decoding per event and per outbox input, outside any
 * transaction: the CPU part of an append and of a claim.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EventCodecBenchmark {

    private EventCodec codec;
    private Event started;
    private Event scheduled;
    private byte[] startedJson;
    private byte[] scheduledJson;
    private Payload input;
    private byte[] inputJson;

    /** Builds the events and their encodings once. */
    @Setup
    public void setUp() {
        codec = EventCodec.create();
        WorkflowId w = WorkflowId.random();
        Instant now = Instant.now();
        started = Fixtures.started(w, now);
        scheduled = Fixtures.scheduled(w, 2, now);
        startedJson = codec.encode(started);
        scheduledJson = codec.encode(scheduled);
        input = Fixtures.input(7);
        inputJson = codec.encodePayload(input);
    }

    /** @return a {@code WorkflowStarted} encoded */
    @Benchmark
    public byte[] encodeWorkflowStarted() {
        return codec.encode(started);
    }

    /** @return a {@code WorkflowStarted} decoded */
    @Benchmark
    public Event decodeWorkflowStarted() {
        return codec.decode(startedJson);
    }

    /** @return an {@code ActivityScheduled} encoded */
    @Benchmark
    public byte[] encodeActivityScheduled() {
        return codec.encode(scheduled);
    }

    /** @return an {@code ActivityScheduled} decoded */
    @Benchmark
    public Event decodeActivityScheduled() {
        return codec.decode(scheduledJson);
    }

    /** @return an outbox input encoded (as staged) */
    @Benchmark
    public byte[] encodePayload() {
        return codec.encodePayload(input);
    }

    /** @return an outbox input decoded (as claimed) */
    @Benchmark
    public Payload decodePayload() {
        return codec.decodePayload(inputJson);
    }
}
