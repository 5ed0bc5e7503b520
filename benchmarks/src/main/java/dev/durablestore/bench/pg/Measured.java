package dev.durablestore.bench.pg;

/**
 * One timed figure of the {@code PG} workload with the CPU it cost.
 *
 * @param perSecond rows (or appends, or executions) per second
 * @param cpu the JVM's and the server's CPU milliseconds per 1,000 of them
 */
record Measured(double perSecond, CpuMeter.Cost cpu) {}
