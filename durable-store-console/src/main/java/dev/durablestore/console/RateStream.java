package dev.durablestore.console;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * The live rates behind {@code GET api/rates}: one sampler per console reads the {@link TrafficMeter}
 * once a period and turns the differences into rows per second. Every subscriber shares it and first
 * gets the last {@link #WINDOW} samples, so a page opened (or reloaded) draws the last minute at once
 * instead of an empty chart. Each event's id is {@code <stream>-<seq>}: an {@code EventSource} that
 * reconnects sends it back as {@code Last-Event-ID} and gets only the samples it has not seen; after
 * a restart (another stream) it gets them all.
 *
 * <p>{@link #close()} ends every stream, and any opened later at once: a server-sent-events response
 * never ends by itself, so a web server shutting down gracefully would otherwise wait for it until
 * its grace period ran out. The page's {@code EventSource} reconnects on its own.
 */
final class RateStream {

    /** The samples a new subscriber gets first, and the page keeps: a minute at one a second. */
    static final int WINDOW = 60;

    private final String stream = UUID.randomUUID().toString().substring(0, 8);
    private final AtomicLong seq = new AtomicLong();
    private final Flux<Map<String, Object>> samples;
    private final Sinks.Empty<Void> closed = Sinks.empty();

    RateStream(TrafficMeter meter, Clock clock, Duration period) {
        // one sampler while anyone listens, and for a minute after, so a page reload keeps the window
        this.samples = Flux.defer(() -> {
                    long[] last = {meter.staged(), meter.claimed(), meter.settled(), System.nanoTime()};
                    return Flux.interval(period, period).onBackpressureDrop().map(tick -> {
                        long now = System.nanoTime();
                        long[] cur = {meter.staged(), meter.claimed(), meter.settled(), now};
                        double seconds = Math.max(1e-3, (now - last[3]) / 1e9);
                        Map<String, Object> m = new LinkedHashMap<>();
                        m.put("available", true);
                        m.put("stream", stream);
                        m.put("seq", seq.incrementAndGet());
                        m.put("at", clock.instant().toString());
                        m.put("periodMillis", period.toMillis());
                        m.put("window", WINDOW);
                        m.put("staged", round((cur[0] - last[0]) / seconds));
                        m.put("claimed", round((cur[1] - last[1]) / seconds));
                        m.put("settled", round((cur[2] - last[2]) / seconds));
                        m.put("stagedTotal", cur[0]);
                        m.put("claimedTotal", cur[1]);
                        m.put("settledTotal", cur[2]);
                        System.arraycopy(cur, 0, last, 0, 4);
                        return m;
                    });
                })
                .replay(WINDOW)
                .refCount(1, Duration.ofMinutes(1));
    }

    /**
     * @param lastEventId the {@code Last-Event-ID} header of a reconnecting {@code EventSource}, or null
     * @return the window of recent samples the client has not seen, then every new one
     */
    Flux<ServerSentEvent<Map<String, Object>>> events(String lastEventId) {
        long seen = seen(lastEventId);
        return samples.takeUntilOther(closed.asMono())
                .filter(m -> (long) m.get("seq") > seen)
                .map(m -> ServerSentEvent.<Map<String, Object>>builder(m)
                        .event("rates")
                        .id(stream + "-" + m.get("seq"))
                        .build());
    }

    /** Completes every stream, and any opened from now on at once; idempotent. */
    void close() {
        // the result only says whether this call or an earlier one closed it
        Sinks.EmitResult ignored = closed.tryEmitEmpty();
    }

    private long seen(String lastEventId) {
        if (lastEventId == null || !lastEventId.startsWith(stream + "-")) {
            return 0;
        }
        try {
            return Long.parseLong(lastEventId.substring(stream.length() + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }
}
