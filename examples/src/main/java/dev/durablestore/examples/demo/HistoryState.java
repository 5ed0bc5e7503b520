package dev.durablestore.examples.demo;

import dev.durablestore.api.event.ActivityCompleted;
import dev.durablestore.api.event.ActivityError;
import dev.durablestore.api.event.ActivityFailed;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowFailed;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the dispatcher needs to know of one workflow's history: its head, the activities it
 * scheduled, which completed, which were dead-lettered, which failed attempts are recorded, and
 * whether the workflow has ended. Built from the stored events and kept current as events are
 * appended. Not thread-safe: a {@link WorkflowSteps} lane changes it only under its lock.
 */
final class HistoryState {

    long head;
    boolean ended;
    final Set<Long> scheduled = new HashSet<>();
    final Set<Long> completed = new HashSet<>();
    final Set<Long> deadLettered = new HashSet<>();
    final Set<Long> failedAttempts = new HashSet<>();

    static HistoryState of(List<Event> events) {
        HistoryState s = new HistoryState();
        events.forEach(s::accept);
        return s;
    }

    /** @return an independent copy */
    HistoryState copy() {
        HistoryState c = new HistoryState();
        c.head = head;
        c.ended = ended;
        c.scheduled.addAll(scheduled);
        c.completed.addAll(completed);
        c.deadLettered.addAll(deadLettered);
        c.failedAttempts.addAll(failedAttempts);
        return c;
    }

    /** A set key for (activity, attempt); attempts stay far below 2^20. */
    static long attemptKey(long activity, int attempt) {
        return (activity << 20) | attempt;
    }

    void accept(Event e) {
        head = e.seq();
        if (e instanceof ActivityScheduled s) {
            scheduled.add(s.activityId().position());
        } else if (e instanceof ActivityCompleted c) {
            completed.add(c.activityId().position());
        } else if (e instanceof ActivityFailed f) {
            failedAttempts.add(attemptKey(f.activityId().position(), f.attempt()));
            if (f.error().kind() == ActivityError.Kind.TERMINAL) {
                deadLettered.add(f.activityId().position());
            }
        } else if (e instanceof WorkflowCompleted || e instanceof WorkflowFailed) {
            ended = true;
        }
    }
}
