package dev.durablestore.sqlite.model;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.RunId;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.api.event.TimerFired;
import dev.durablestore.api.event.WorkflowCancelled;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowPaused;
import dev.durablestore.api.event.WorkflowReopened;
import dev.durablestore.api.event.WorkflowResumed;
import dev.durablestore.api.event.WorkflowStarted;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The small value pools the generated sequences draw from, chosen so that keys collide, instants
 * tie and the orderings of the contract matter.
 *
 * <ul>
 *   <li>Three workflows whose canonical text order (M3) differs from {@link java.util.UUID#compareTo}
 *       (the third has its top bit set, so it is "negative" to {@code UUID}).
 *   <li>Ordinals 1, 2 and 10, so that text order of dispatch keys puts {@code …:10} before
 *       {@code …:2} (O18); ordinal 7 is never staged and serves as an unknown key (O33).
 *   <li>Two namespaces × two task queues, node absent or {@code n1} (a scope may also name
 *       {@code n2}, which admits only unpinned rows).
 *   <li>Timer ids whose text order is not their numeric order (T4).
 *   <li>Instants at half-second steps from one fixed start, so equal {@code visibleAfter},
 *       {@code claimedAt} and {@code fireAt} values are common.
 * </ul>
 */
final class Pools {

    static final Instant START = Instant.parse("2026-06-03T00:00:00Z");
    static final Duration STEP = Duration.ofMillis(500);

    static final List<WorkflowId> WORKFLOWS = List.of(
            WorkflowId.parse("00000000-0000-4000-8000-000000000001"),
            WorkflowId.parse("7fffffff-ffff-4fff-bfff-fffffffffff2"),
            WorkflowId.parse("80000000-0000-4000-8000-000000000003"));

    static final List<Long> ORDINALS = List.of(1L, 2L, 10L);
    static final long UNKNOWN_ORDINAL = 7L;

    static final List<String> NAMESPACES = List.of("ns-a", "ns-b");
    /** Namespaces that counts are asked about: the two in use and one that never has rows (O46). */
    static final List<String> COUNTED_NAMESPACES = List.of("ns-a", "ns-b", "ns-x");

    static final List<String> TASK_QUEUES = List.of("q1", "q2");
    static final List<String> ROW_NODES = java.util.Arrays.asList(null, "n1");
    static final List<String> SCOPE_NODES = java.util.Arrays.asList(null, "n1", "n2");

    static final List<TimerId> TIMERS =
            List.of(TimerId.named("a"), TimerId.named("b"), TimerId.anonymous(3), TimerId.anonymous(10));

    /** Every key a row can have, plus one key that is never staged. */
    static final List<String> KEYS;

    static {
        List<String> keys = new ArrayList<>();
        for (WorkflowId w : WORKFLOWS) {
            for (long o : ORDINALS) {
                keys.add(OutboxRow.dispatchKey(w, o));
            }
        }
        keys.add(OutboxRow.dispatchKey(WORKFLOWS.get(0), UNKNOWN_ORDINAL));
        KEYS = List.copyOf(keys);
    }

    private static final PackageVersion PACKAGE = new PackageVersion("0".repeat(64));

    private Pools() {}

    static WorkflowId workflow(int index) {
        return WORKFLOWS.get(index);
    }

    static RunId runOf(WorkflowId w) {
        return RunId.parse(
                w.toString().replace('-', '0').substring(0, 8) + w.toString().substring(8));
    }

    /** @return {@code start + steps × 500 ms} */
    static Instant at(Instant base, int steps) {
        return base.plus(STEP.multipliedBy(steps));
    }

    /** @return the instant as seconds after {@link #START}, e.g. {@code 1.5} */
    static String offset(Instant t) {
        Duration d = Duration.between(START, t);
        return BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString();
    }

    static String shortName(WorkflowId w) {
        return shortName(w.toString());
    }

    static String shortName(String workflowText) {
        for (int i = 0; i < WORKFLOWS.size(); i++) {
            if (WORKFLOWS.get(i).toString().equals(workflowText)) {
                return "w" + i;
            }
        }
        return workflowText;
    }

    static String shortKey(String key) {
        int colon = key.lastIndexOf(':');
        return colon < 0 ? key : shortName(key.substring(0, colon)) + key.substring(colon);
    }

    static String scope(ClaimScope s) {
        return s.namespace() + "/" + s.taskQueue() + (s.node() == null ? "" : "@" + s.node());
    }

    /** The event kinds a generated batch uses: lifecycle kinds that move the projected status, and two that do not. */
    enum Kind {
        STARTED,
        COMPLETED,
        CANCELLED,
        PAUSED,
        RESUMED,
        REOPENED,
        SIGNAL,
        TIMER_FIRED;

        Event build(WorkflowId w, long seq, Instant at) {
            EventEnvelope env = new EventEnvelope(seq, at, w);
            RunId run = runOf(w);
            return switch (this) {
                case STARTED ->
                    new WorkflowStarted(env, "order", Payload.json("{\"n\":" + seq + "}"), run, null, PACKAGE);
                case COMPLETED -> new WorkflowCompleted(env, Payload.json("\"ok\""));
                case CANCELLED -> new WorkflowCancelled(env, "stop");
                case PAUSED -> new WorkflowPaused(env, run, seq % 2 == 0 ? "ops" : null, null);
                case RESUMED -> new WorkflowResumed(env, run, null);
                case REOPENED -> new WorkflowReopened(env, run, List.of());
                case SIGNAL -> new SignalReceived(env, "poke", Payload.json("[" + seq + "]"));
                case TIMER_FIRED -> new TimerFired(env, TimerId.anonymous(seq));
            };
        }
    }
}
