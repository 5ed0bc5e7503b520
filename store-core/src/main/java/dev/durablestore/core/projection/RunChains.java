package dev.durablestore.core.projection;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.RunId;
import dev.durablestore.api.RunSummary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** Orders run summaries along their parent links and rejects malformed chains (R43–R45). */
final class RunChains {

    /**
     * One run slice's summary and the {@code seq} of the {@code WorkflowStarted} that began it.
     *
     * @param summary the projected run
     * @param startSeq where the run started, for error messages
     */
    record Run(RunSummary summary, long startSeq) {
        RunId runId() {
            return summary.runId();
        }

        RunId parentRunId() {
            return summary.parentRunId();
        }
    }

    private RunChains() {}

    /**
     * Orders runs from the single root (no parent) to the run nobody continues (R43).
     *
     * @param runs the runs in {@code seq} order
     * @return the summaries, root first; empty for no runs
     * @throws BackendException for a malformed chain (R44)
     */
    static List<RunSummary> order(List<Run> runs) {
        if (runs.isEmpty()) {
            return List.of();
        }
        Map<RunId, Run> byId = new LinkedHashMap<>();
        List<Run> roots = new ArrayList<>(1);
        Map<RunId, Run> childOf = new HashMap<>();
        for (Run run : runs) {
            Run earlier = byId.putIfAbsent(run.runId(), run);
            if (earlier != null) {
                throw malformed("run " + run.runId() + " is started more than once (seq " + earlier.startSeq()
                        + " and seq " + run.startSeq() + ")");
            }
            if (run.parentRunId() == null) {
                roots.add(run);
                continue;
            }
            Run sibling = childOf.putIfAbsent(run.parentRunId(), run);
            if (sibling != null) {
                throw malformed(
                        "runs " + sibling.runId() + " and " + run.runId() + " both continue run " + run.parentRunId());
            }
        }
        if (roots.isEmpty()) {
            throw malformed("no root run (every run names a parent run): runs " + ids(runs));
        }
        if (roots.size() > 1) {
            throw malformed("more than one root run (runs without a parent run): " + ids(roots));
        }

        List<RunSummary> ordered = new ArrayList<>(runs.size());
        Set<RunId> reached = new HashSet<>();
        for (Run current = roots.get(0); current != null; current = childOf.get(current.runId())) {
            if (!reached.add(current.runId())) {
                // Unreachable with unique run ids and unique parents; kept as a guard.
                throw malformed("run " + current.runId() + " is reached twice from the root (cycle)");
            }
            ordered.add(current.summary());
        }
        if (ordered.size() < runs.size()) {
            throw unreachable(runs, byId, reached, roots.get(0).runId());
        }
        return List.copyOf(ordered);
    }

    /**
     * Explains why some runs were not reached from the root: their parent links either loop (a
     * cycle) or end at a run that the history never starts.
     */
    private static BackendException unreachable(List<Run> runs, Map<RunId, Run> byId, Set<RunId> reached, RunId root) {
        List<Run> orphans =
                runs.stream().filter(run -> !reached.contains(run.runId())).toList();
        // Parent links form a functional graph; follow each orphan's links to find a cycle.
        Set<RunId> done = new HashSet<>();
        for (Run orphan : orphans) {
            Map<RunId, Integer> path = new LinkedHashMap<>();
            RunId cursor = orphan.runId();
            while (cursor != null && !done.contains(cursor) && byId.containsKey(cursor)) {
                if (path.containsKey(cursor)) {
                    List<RunId> walk = new ArrayList<>(path.keySet());
                    List<RunId> cycle = new ArrayList<>(walk.subList(path.get(cursor), walk.size()));
                    cycle.add(cursor);
                    return malformed("runs form a cycle of parent links: "
                            + cycle.stream().map(RunId::toString).collect(Collectors.joining(" -> "))
                            + "; runs not reachable from root " + root + ": " + ids(orphans));
                }
                path.put(cursor, path.size());
                cursor = byId.get(cursor).parentRunId();
            }
            done.addAll(path.keySet());
        }
        String dangling = orphans.stream()
                .filter(run -> !byId.containsKey(run.parentRunId()))
                .map(run -> run.runId() + " names unknown parent run " + run.parentRunId())
                .collect(Collectors.joining(", "));
        return malformed("runs not reachable from root " + root + ": " + ids(orphans)
                + (dangling.isEmpty() ? "" : " (" + dangling + ")"));
    }

    private static String ids(List<Run> runs) {
        return runs.stream().map(run -> run.runId().toString()).collect(Collectors.joining(", ", "[", "]"));
    }

    private static BackendException malformed(String detail) {
        return new BackendException("malformed run chain: " + detail);
    }
}
