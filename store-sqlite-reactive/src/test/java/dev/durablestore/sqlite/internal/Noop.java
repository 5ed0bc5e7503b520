package dev.durablestore.sqlite.internal;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A test command that writes nothing and runs {@code body} on the writer, inside the transaction. */
record Noop(Runnable body) implements WriteCommand<Void> {

    /** @return a command that does nothing */
    static Noop noop() {
        return new Noop(() -> {});
    }

    /** @return a command that holds the writer until {@code release} (at most 10 s) */
    static Noop holding(CountDownLatch release) {
        return new Noop(() -> await(release));
    }

    /** Waits for the latch at most 10 s, keeping the interrupt status. */
    static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public Void execute(DbConnection c) {
        body.run();
        return null;
    }

    @Override
    public String name() {
        return "noop";
    }
}
