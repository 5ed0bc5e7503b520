package dev.durablestore.spring;

import dev.durablestore.api.OutboxLeaseReaper;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;

/**
 * Runs the {@link OutboxLeaseReaper} while the context runs. It stops in phase {@link #PHASE},
 * after the dispatcher has released its claims and before the store closes.
 */
final class LeaseReaperLifecycle implements SmartLifecycle {

    /** Stops after {@link DispatcherLifecycle#PHASE}. */
    static final int PHASE = DispatcherLifecycle.PHASE - 1024;

    private final OutboxLeaseReaper reaper;
    private volatile Disposable running;

    LeaseReaperLifecycle(OutboxLeaseReaper reaper) {
        this.reaper = reaper;
    }

    @Override
    public synchronized void start() {
        if (running == null) {
            running = reaper.start();
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
