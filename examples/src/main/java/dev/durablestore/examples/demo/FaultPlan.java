package dev.durablestore.examples.demo;

import java.nio.charset.StandardCharsets;

/**
 * Decides, deterministically from a seed, which activity attempts fail.
 *
 * <p>An activity is <em>poison</em> with probability {@code poisonRate}: every attempt fails, so
 * it is dead-lettered after {@code maxAttempts}. Any other attempt fails with probability
 * {@code failureRate} and is retried. Each decision hashes the seed with the row's dispatch key
 * (and the attempt), so it does not depend on timing or thread scheduling: the same seed gives the
 * same failures on every run, and a redelivered attempt gets the same answer again.
 *
 * @param seed the seed
 * @param failureRate probability that a non-poison attempt fails
 * @param poisonRate probability that an activity always fails
 * @param maxAttempts attempts before dead-lettering
 */
public record FaultPlan(long seed, double failureRate, double poisonRate, int maxAttempts) {

    /**
     * @param options the demo options
     * @return the plan they describe
     */
    public static FaultPlan of(DemoOptions options) {
        return new FaultPlan(options.seed(), options.failureRate(), options.poisonRate(), options.maxAttempts());
    }

    /**
     * @param dispatchKey the activity's row
     * @return true when every attempt of this activity fails
     */
    public boolean isPoison(String dispatchKey) {
        return unit(hash(dispatchKey, -1)) < poisonRate;
    }

    /**
     * @param dispatchKey the activity's row
     * @param attempt the 1-based activity attempt
     * @return true when this attempt fails
     */
    public boolean fails(String dispatchKey, int attempt) {
        return isPoison(dispatchKey) || unit(hash(dispatchKey, attempt)) < failureRate;
    }

    /**
     * @param attempt the 1-based attempt that failed
     * @return true when no further attempt may be made
     */
    public boolean isLastAttempt(int attempt) {
        return attempt >= maxAttempts;
    }

    private long hash(String key, int attempt) {
        long h = seed * 0x9E3779B97F4A7C15L + attempt;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            h = mix(h ^ b);
        }
        return mix(h);
    }

    /** The SplitMix64 finalizer. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** @return a double in [0, 1) from the top 53 bits */
    private static double unit(long h) {
        return (h >>> 11) * 0x1.0p-53;
    }
}
