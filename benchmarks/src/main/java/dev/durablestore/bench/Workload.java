package dev.durablestore.bench;

import java.util.List;

/** One group of targets (P1…P9, PG): measures the store and its baseline over every run. */
public interface Workload {

    /** @return the target group id, e.g. {@code P1} */
    String id();

    /** @return the targets this workload reports, in report order */
    List<Target> targets();

    /**
     * Runs the workload {@link RunContext#runs()} times, store and baseline back to back in each run.
     *
     * @param ctx sizes, run count, temporary files and the progress log
     * @return the targets and context figures
     * @throws Exception when the workload cannot run; the runner reports its targets as not met
     */
    Section run(RunContext ctx) throws Exception;
}
