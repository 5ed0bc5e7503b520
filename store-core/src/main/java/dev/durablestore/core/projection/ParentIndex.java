package dev.durablestore.core.projection;

import com.google.errorprone.annotations.CanIgnoreReturnValue;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ChildWorkflowStarted;
import dev.durablestore.api.event.Event;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Accumulates the parent projection (R30): the parent of workflow {@code C} is the workflow
 * {@code P} whose history holds a {@code ChildWorkflowStarted} naming {@code C} as
 * {@code childWorkflowId}. When several such events exist, the last one in (parent workflow id
 * canonical text, {@code seq}) order wins (M3 ordering of ids).
 *
 * <p>The winner is decided by comparing that key, not by arrival order, so events may be fed in any
 * order — typically streamed in (workflow id, {@code seq}) order straight from storage, possibly
 * prefiltered to {@code ChildWorkflowStarted}. The parent of an event is its envelope's workflow id,
 * which equals the history it is stored in (E11). Kinds other than {@code ChildWorkflowStarted} are
 * ignored, so a whole history can be fed as is.
 *
 * <p>Memory is proportional to the number of distinct children. Not thread-safe: feed one instance
 * from one thread (or one reactive sequence) at a time.
 *
 * <pre>{@code
 * ParentIndex parents = new ParentIndex();
 * childStartedEvents.forEach(parents);
 * WorkflowId parent = parents.parentOf(child).orElse(null);
 * }</pre>
 */
public final class ParentIndex implements Consumer<Event> {

    /** The winning event's parent and {@code seq} for one child. */
    private record Link(WorkflowId parent, long seq) {

        /** @return true when this link comes after {@code other} in (parent id text, seq) order */
        boolean isAfter(Link other) {
            int byParent = parent.compareTo(other.parent);
            return byParent != 0 ? byParent > 0 : seq > other.seq;
        }
    }

    private final Map<WorkflowId, Link> links = new HashMap<>();

    /** Creates an empty index. */
    public ParentIndex() {}

    /**
     * Records the parent link carried by {@code event} when it is a {@code ChildWorkflowStarted}
     * (R30); any other kind is ignored.
     *
     * @param event an event of any workflow
     * @throws InvalidArgumentException when {@code event} is {@code null}
     */
    @Override
    public void accept(Event event) {
        InvalidArgumentException.requireNonNull(event, "event");
        if (event instanceof ChildWorkflowStarted started) {
            Link link = new Link(started.workflowId(), started.seq());
            links.merge(started.childWorkflowId(), link, (held, offered) -> offered.isAfter(held) ? offered : held);
        }
    }

    /**
     * Records every event of {@code events} as {@link #accept} does (R30).
     *
     * @param events events of any workflows, in any order
     * @return this index
     * @throws InvalidArgumentException when {@code events} or one of its elements is {@code null}
     */
    @CanIgnoreReturnValue // returns this index, for chaining
    public ParentIndex acceptAll(Iterable<? extends Event> events) {
        InvalidArgumentException.requireNonNull(events, "events");
        for (Event event : events) {
            accept(event);
        }
        return this;
    }

    /**
     * Looks up a workflow's parent (R30).
     *
     * @param child the workflow
     * @return the parent named by the winning {@code ChildWorkflowStarted}, or empty when no event
     *     seen so far names {@code child}
     * @throws InvalidArgumentException when {@code child} is {@code null}
     */
    public Optional<WorkflowId> parentOf(WorkflowId child) {
        InvalidArgumentException.requireNonNull(child, "child");
        Link link = links.get(child);
        return link == null ? Optional.empty() : Optional.of(link.parent());
    }

    /**
     * Returns every parent link seen so far (R30).
     *
     * @return an unmodifiable snapshot mapping child workflow id to parent workflow id
     */
    public Map<WorkflowId, WorkflowId> asMap() {
        Map<WorkflowId, WorkflowId> snapshot = new HashMap<>(links.size() * 2);
        links.forEach((child, link) -> snapshot.put(child, link.parent()));
        return Collections.unmodifiableMap(snapshot);
    }

    /** @return the number of children with a known parent */
    public int size() {
        return links.size();
    }
}
