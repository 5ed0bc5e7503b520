package dev.durablestore.spring;

import java.util.function.Supplier;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;

/**
 * Runs a background sweeper of the store (the {@link dev.durablestore.api.OutboxLeaseReaper}, the
 * {@link dev.durablestore.api.RetentionSweeper}) while the context runs. It stops in phase
 * {@link #PHASE}, after the dispatcher has released its claims and before the store closes.
 */
final class SweeperLifecycle implements SmartLifecycle {

    /** Stops after {@link DispatcherLifecycle#PHASE}. */
    static final int PHASE = DispatcherLifecycle.PHASE - 1024;

    private final Supplier<Disposable> sweeper;
    private volatile Disposable running;

    /** @param sweeper starts the sweeper ({@code reaper::start}) and returns what stops it */
    SweeperLifecycle(Supplier<Disposable> sweeper) {
        this.sweeper = sweeper;
    }

    @Override
    public synchronized void start() {
        if (running == null) {
            running = sweeper.get();
        }
    }

    @Override
    public synchronized void stop() {
        Disposable r = running;
        running = null;
        if (r != null) {
            r.dispose();
        }
    }

    @Override
    public boolean isRunning() {
        return running != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
