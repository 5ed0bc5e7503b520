package dev.durablestore.examples.webflux;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Starts {@code checkout} workflows at {@code example.traffic.workflows-per-second} through
 * {@link WorkflowService#start}, as a client posting to {@code /workflows} would: each schedules
 * {@code charge-card} (task queue {@code payments}) and {@code send-email} (task queue {@code mail}),
 * and a share {@code example.traffic.declined-rate} of them carries a card that
 * {@link TrafficWorker} declines on every attempt. It starts with the application and stops before
 * the web server and the dispatcher do.
 */
final class TrafficLoop implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(TrafficLoop.class);
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final WorkflowService service;
    private final ExampleProperties.Traffic traffic;
    private final AtomicLong started = new AtomicLong();
    private volatile Disposable loop;

    TrafficLoop(WorkflowService service, ExampleProperties.Traffic traffic) {
        this.service = service;
        this.traffic = traffic;
    }

    /** @return the workflows started so far */
    long started() {
        return started.get();
    }

    @Override
    public void start() {
        Duration period = Duration.ofNanos(Math.round(1e9 / traffic.workflowsPerSecond()));
        log.info(
                "demo traffic: {} checkout workflows a second, {} % of them with a declined card",
                traffic.workflowsPerSecond(), Math.round(traffic.declinedRate() * 100));
        loop = Flux.interval(period)
                .onBackpressureDrop()
                .concatMap(
                        tick -> service.start(request(tick))
                                .doOnNext(w -> started.incrementAndGet())
                                .onErrorResume(e -> {
                                    log.warn("demo traffic: a workflow did not start: {}", e.toString());
                                    return Mono.empty();
                                }),
                        0)
                .subscribe();
    }

    private StartWorkflowRequest request(long tick) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        boolean declined = random.nextDouble() < traffic.declinedRate();
        ObjectNode order = JSON.objectNode().put("order", tick).put("amount", 5 + random.nextInt(200));
        ObjectNode card = JSON.objectNode()
                .put("amount", order.get("amount").asInt())
                .put("card", declined ? TrafficWorker.DECLINED : "ok");
        ObjectNode email = JSON.objectNode().put("to", "customer-" + tick + "@example.com");
        return new StartWorkflowRequest(
                null,
                "checkout",
                order,
                List.of(
                        new StartWorkflowRequest.Activity("charge-card", card, "payments"),
                        new StartWorkflowRequest.Activity("send-email", email, "mail")));
    }

    @Override
    public void stop() {
        Disposable l = loop;
        if (l != null) {
            l.dispose();
        }
        loop = null;
    }

    @Override
    public boolean isRunning() {
        return loop != null;
    }

    /** Stops first: before the web server's graceful shutdown and the dispatcher. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE;
    }
}
