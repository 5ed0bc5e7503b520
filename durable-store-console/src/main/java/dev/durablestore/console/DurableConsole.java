package dev.durablestore.console;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.ReactiveStore;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The operator console of a durable-store: a {@link RouterFunction} the host's WebFlux application
 * mounts under a path of its choice, so it is served by the application's own server and port.
 * Pages are plain HTML, CSS and JavaScript from this jar (no build step, nothing fetched from the
 * internet); they read a JSON API under {@code <path>/api}.
 *
 * <pre>{@code
 * @Bean
 * RouterFunction<ServerResponse> console(ReactiveStore store) {
 *     return DurableConsole.builder(store).build().router("/ops/durable-store");
 * }
 * }</pre>
 *
 * <p>It is read-only unless {@link ConsoleOptions#readOnly()} is false, and then every action also
 * needs the host's {@link ConsoleAuthorizer} to allow it and a valid CSRF token (see
 * {@code docs/console.md} for the endpoints and the security model).
 *
 * <p>The live rates ({@code GET <path>/api/rates}) are a server-sent-events stream that stays open
 * while a page shows them. A web server that shuts down gracefully waits for open responses, so the
 * host calls {@link #close()} when it starts shutting down, before its server stops taking requests
 * (the Spring Boot starter does): every stream ends, and the page's {@code EventSource} reconnects
 * by itself, to the next instance.
 */
public final class DurableConsole implements AutoCloseable {

    private final ReactiveStore store;
    private final ConsoleOptions options;
    private final ConsoleAuthorizer authorizer;
    private final TrafficMeter meter;
    private final Clock clock;
    private final List<ConsoleHandlers> mounted = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private DurableConsole(Builder b) {
        this.store = b.store;
        this.options = b.options;
        this.authorizer = b.authorizer;
        this.meter = b.meter;
        this.clock = b.clock;
    }

    /**
     * @param store the store to show and act on
     * @return a builder with {@link ConsoleOptions#defaults()}, no authorizer, no meter and the UTC
     *     system clock
     */
    public static Builder builder(ReactiveStore store) {
        return new Builder(
                InvalidArgumentException.requireNonNull(store, "store"),
                ConsoleOptions.defaults(),
                null,
                null,
                Clock.systemUTC());
    }

    /** @return the options the console runs with */
    public ConsoleOptions options() {
        return options;
    }

    /**
     * @param path where to mount it, e.g. {@code /ops/console}: starts with {@code /}, no trailing
     *     {@code /}, letters, digits and {@code -_./} only
     * @return the routes: the pages under {@code path/}, the API under {@code path/api}
     * @throws InvalidArgumentException naming {@code path} when it is not such a path
     */
    public RouterFunction<ServerResponse> router(String path) {
        requirePath(path);
        ConsoleHandlers handlers = new ConsoleHandlers(store, options, authorizer, meter, clock, path);
        mounted.add(handlers);
        if (closed) {
            handlers.close();
        }
        return handlers.routes();
    }

    /**
     * Checks a mount path as {@link #router(String)} does, for settings read before the console
     * exists (Spring-free: the class needs no WebFlux until {@code router} is called).
     *
     * @param path the path to check
     * @return {@code path}
     * @throws InvalidArgumentException naming {@code path} when it is null or does not start with
     *     {@code /}, ends with {@code /}, or holds anything but letters, digits and {@code -_./}
     */
    @CanIgnoreReturnValue
    public static String requirePath(String path) {
        InvalidArgumentException.requireNonNull(path, "path");
        if (!path.matches("(/[A-Za-z0-9._-]+)+")) {
            throw new InvalidArgumentException(
                    "path", "must look like /ops/console (no trailing slash), was '" + path + "'");
        }
        return path;
    }

    /**
     * Ends the console's open streams (the live rates of every page) and makes any opened later end
     * at once; the other routes keep answering. Call it when the application starts shutting down,
     * before the web server's graceful shutdown waits for open requests. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        for (ConsoleHandlers handlers : mounted) {
            handlers.close();
        }
    }

    /**
     * What a {@link DurableConsole} is built from. Immutable: each {@code with*} method returns a
     * copy and leaves this one unchanged, so its result must be used (a {@code with*} call as a
     * statement does nothing; Error Prone reports it); {@link #build()} checks the whole.
     *
     * <pre>{@code
     * DurableConsole console = DurableConsole.builder(store)
     *         .withOptions(ConsoleOptions.defaults().withReadOnly(false))
     *         .withAuthorizer(authorizer)
     *         .build();
     * }</pre>
     */
    public static final class Builder {
        private final ReactiveStore store;
        private final ConsoleOptions options;
        private final ConsoleAuthorizer authorizer;
        private final TrafficMeter meter;
        private final Clock clock;

        private Builder(
                ReactiveStore store,
                ConsoleOptions options,
                ConsoleAuthorizer authorizer,
                TrafficMeter meter,
                Clock clock) {
            this.store = store;
            this.options = options;
            this.authorizer = authorizer;
            this.meter = meter;
            this.clock = clock;
        }

        /**
         * @param value the options
         * @return a copy with the options set
         * @throws InvalidArgumentException when {@code value} is null
         */
        public Builder withOptions(ConsoleOptions value) {
            return new Builder(
                    store, InvalidArgumentException.requireNonNull(value, "options"), authorizer, meter, clock);
        }

        /**
         * @param value the host's decision on each action; required unless read-only
         * @return a copy with the authorizer set
         */
        public Builder withAuthorizer(ConsoleAuthorizer value) {
            return new Builder(store, options, value, meter, clock);
        }

        /**
         * @param value the meter wrapping the application's store, for live rates; none shows no rates
         * @return a copy with the meter set
         */
        public Builder withMeter(TrafficMeter value) {
            return new Builder(store, options, authorizer, value, clock);
        }

        /**
         * @param value the clock ages and due times are measured with
         * @return a copy with the clock set
         * @throws InvalidArgumentException when {@code value} is null
         */
        public Builder withClock(Clock value) {
            return new Builder(
                    store, options, authorizer, meter, InvalidArgumentException.requireNonNull(value, "clock"));
        }

        /**
         * @return the console
         * @throws IllegalStateException when actions are enabled without an authorizer
         */
        public DurableConsole build() {
            if (!options.readOnly() && authorizer == null) {
                throw new IllegalStateException("a console with actions needs a ConsoleAuthorizer: the host decides "
                        + "who may redrive, release and cancel");
            }
            return new DurableConsole(this);
        }
    }
}
