package dev.durablestore.bench.pg;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs one blocking JDBC loop on several threads at once and waits for all of them. */
final class Workers {

    /** One thread's loop. */
    @FunctionalInterface
    interface Loop {
        /**
         * @param worker this thread's number, from 0
         * @throws Exception on failure, which fails the whole run
         */
        void run(int worker) throws Exception;
    }

    private Workers() {}

    /**
     * @param threads how many threads
     * @param loop what each runs
     * @return the wall time from the first start to the last end, in nanoseconds
     */
    static long run(int threads, Loop loop) {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            long began = System.nanoTime();
            List<Future<?>> all = new ArrayList<>(threads);
            for (int i = 0; i < threads; i++) {
                int worker = i;
                all.add(pool.submit(() -> {
                    loop.run(worker);
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get(10, TimeUnit.MINUTES);
            }
            return System.nanoTime() - began;
        } catch (Exception e) {
            throw new IllegalStateException("a raw PostgreSQL loop failed: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }
}
