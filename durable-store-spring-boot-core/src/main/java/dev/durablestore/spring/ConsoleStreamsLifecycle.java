package dev.durablestore.spring;

import dev.durablestore.console.DurableConsole;
import org.springframework.boot.web.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.SmartLifecycle;

/**
 * Ends the console's open streams (the live rates) when the context starts shutting down. It stops
 * in phase {@link #PHASE}, before the web server's graceful shutdown, which waits for every open
 * response: a page left open on the console would otherwise hold each shutdown for the whole
 * {@code spring.lifecycle.timeout-per-shutdown-phase}, and the dispatcher and the store behind it.
 */
final class ConsoleStreamsLifecycle implements SmartLifecycle {

    /** Stops before the graceful shutdown ({@code DEFAULT_PHASE - 1024}), after the health indicator. */
    static final int PHASE = WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE + 512;

    private final DurableConsole console;
    private volatile boolean running;

    ConsoleStreamsLifecycle(DurableConsole console) {
        this.console = console;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        console.close();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
